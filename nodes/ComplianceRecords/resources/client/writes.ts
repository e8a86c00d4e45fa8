import type { IDataObject } from 'n8n-workflow';

import { routedPages } from '../../helpers/lists';
import { recordIn, routedRequest, routedSend } from '../../helpers/routing';
import { type CreateLookup, sameValue, type UpdateReadBack } from '../../helpers/writes';
import { isObject } from '../../transport/answers';
import { pages } from '../../transport/paging';

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
	// Only the client's own changes move `updatedAt`; an update cannot touch its entity.
	changedAt: (client) => Date.parse(String(client.updatedAt)),
};

const normalised = (text: unknown) =>
	String(text ?? '')
		.trim()
		.toLowerCase();

const sameText = (shown: unknown, sent: unknown) => normalised(shown) === normalised(sent);

const asRecord = (value: unknown): IDataObject => (isObject(value) ? value : {});

const samePerson = (shown: unknown, sent: unknown) =>
	['firstName', 'middleName', 'lastName', 'email'].every((field) =>
		sameText(asRecord(shown)[field], asRecord(sent)[field]),
	);

interface EntitySent {
	category: string;
	/** Words one of which the client's name holds, however the service composes it. */
	named(sent: IDataObject): unknown[];
	is(shown: IDataObject, sent: IDataObject): boolean;
}

const ENTITIES: Record<string, EntitySent> = {
	individual: {
		category: 'INDIVIDUAL',
		named: (sent) => [sent.lastName],
		is: (shown, sent) => shown.object === 'individual' && samePerson(shown, sent),
	},
	sole_trader: {
		category: 'SOLE_TRADER',
		named: (sent) => [sent.tradingName, asRecord(sent.individual).lastName],
		is: (shown, sent) =>
			shown.object === 'sole_trader' &&
			sameText(shown.tradingName, sent.tradingName) &&
			samePerson(shown.individual, sent.individual),
	},
	organisation: {
		category: 'ORGANISATION',
		named: (sent) => [sent.name],
		is: (shown, sent) =>
			shown.object === 'organisation' &&
			sameText(shown.name, sent.name) &&
			shown.organisationType === sent.type &&
			sameText(shown.identifyingNumber, sent.identifyingNumber),
	},
	import_uk_company: {
		category: 'ORGANISATION',
		named: () => [],
		is: (shown, sent) =>
			shown.object === 'organisation' && sameText(shown.companyNumber, sent.companyNumber),
	},
};

interface Match {
	listed(client: IDataObject): boolean;
	made(client: IDataObject): boolean;
}

const hasReference = (body: IDataObject) =>
	typeof body.referenceNumber === 'string' && body.referenceNumber !== '';

function matchOf(body: IDataObject): Match {
	if (hasReference(body))
		return {
			listed: (client) => client.referenceNumber === body.referenceNumber,
			made: () => true,
		};
	const { entity, ...fields } = body;
	const sent = asRecord(entity);
	const kind = ENTITIES[String(sent.object)];
	const names = kind
		.named(sent)
		.map(normalised)
		.filter((name) => name !== '');
	return {
		listed: (client) =>
			client.category === kind.category &&
			(names.length === 0 || names.some((name) => normalised(client.name).includes(name))),
		made: (client) =>
			kind.is(asRecord(client.entity), sent) && clientReadBack.shows(fields, client),
	};
}

export const clientCreates: CreateLookup = {
	refusesDuplicate: hasReference,
	async createdWithin(context, requestData, { from, to }) {
		const match = matchOf(requestData.options.body as IDataObject);
		const list = routedRequest(requestData, { method: 'GET', url: '/clients', body: undefined });
		const since = { sinceModifiedAt: new Date(from).toISOString() };
		const read = new Set<string>();
		const made: IDataObject[] = [];
		for await (const { records } of pages(routedPages(context, list, since))) {
			const candidates = records.filter((item) => match.listed(item) && !read.has(String(item.id)));
			for (const { id } of candidates) {
				read.add(String(id));
				const url = `/clients/${encodeURIComponent(String(id))}`;
				const get = routedRequest(requestData, { method: 'GET', url, body: undefined });
				const client = recordIn((await routedSend(context, get))[0]);
				const createdAt = Date.parse(String(client.createdAt));
				if (createdAt >= from && createdAt <= to && match.made(client)) made.push(client);
			}
		}
		return made;
	},
};
