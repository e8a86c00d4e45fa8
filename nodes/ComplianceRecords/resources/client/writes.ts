import type { IDataObject } from 'n8n-workflow';

import { routedPages } from '../../helpers/lists';
import { recordIn, routedRequest, routedSend } from '../../helpers/routing';
import { sameValue, type UniqueCreate, type UpdateReadBack } from '../../helpers/writes';
import { isObject } from '../../transport/answers';
import { pages } from '../../transport/paging';

/* How the service's clients show a write: an update read back, a create found by its reference number. */

const idOf = (reference: unknown) => (isObject(reference) ? reference.id : undefined);

const SHOWN_AS: Record<string, (client: IDataObject) => unknown> = {
	status: (client) => client.state,
	partnerId: (client) => idOf(client.partner),
	managerId: (client) => idOf(client.manager),
	businessUnitId: (client) => idOf(client.businessUnit),
	serviceIds: (client) => client.services,
	referenceNumber: (client) => client.referenceNumber,
	nextReviewDate: (client) => client.nextReviewDate,
};

export const clientReadBack: UpdateReadBack = {
	shows: (sent, client) =>
		Object.entries(sent).every(
			([field, value]) => field in SHOWN_AS && sameValue(SHOWN_AS[field](client), value),
		),
	// The client's own changes move `updatedAt` (its entity's do not: an update cannot touch it).
	changedAt: (client) => Date.parse(String(client.updatedAt)),
};

/** The service refuses a second client with a reference number (409); the first is found among the changes since. */
export const clientCreates: UniqueCreate = {
	refusesDuplicate: (body) =>
		typeof body.referenceNumber === 'string' && body.referenceNumber !== '',
	async createdWithin(context, requestData, { from, to }) {
		const { referenceNumber } = requestData.options.body as IDataObject;
		const list = routedRequest(requestData, { method: 'GET', url: '/clients', body: undefined });
		const since = { sinceModifiedAt: new Date(from).toISOString() };
		for await (const { records } of pages(routedPages(context, list, since))) {
			const holder = records.find((client) => client.referenceNumber === referenceNumber);
			if (holder === undefined) continue;
			const url = `/clients/${encodeURIComponent(String(holder.id))}`;
			const read = routedRequest(requestData, { method: 'GET', url, body: undefined });
			const client = recordIn((await routedSend(context, read))[0]);
			const createdAt = Date.parse(String(client.createdAt));
			return createdAt >= from && createdAt <= to ? client : undefined;
		}
		return undefined;
	},
};
