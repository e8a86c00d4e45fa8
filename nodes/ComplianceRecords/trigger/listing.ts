import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { serviceTimeFromDate } from '../helpers/serviceTime';
import { headerOf } from '../transport/answers';
import { type ListPage, pages } from '../transport/paging';
import { serviceRequest } from '../transport/request';
import type { PollBudget } from './budget';
import { checkedClient, type Client, unreadable } from './validation';

interface ReceivedPage {
	/** Host-monotonic ms from sending the poll's first page request to receiving this page. */
	lateness: number;
	serviceTime: number | undefined;
}

/** `received()` describes the page last fetched. */
export function clientPages(
	context: IPollFunctions,
	budget: PollBudget,
	since: number | undefined,
) {
	const filter: IDataObject =
		since === undefined ? {} : { sinceModifiedAt: new Date(since).toISOString() };
	let firstRequestAt: number | undefined;
	let last: ReceivedPage | undefined;
	const fetchPage = async (paging: { limit: number; cursor?: string }) => {
		const sentAt = budget.elapsed();
		firstRequestAt ??= sentAt;
		const { body, headers } = await budget.within(
			serviceRequest.call(context, {
				method: 'GET',
				url: '/clients',
				qs: { ...filter, ...paging },
				timeoutMs: budget.requestTimeout(),
				pacing: budget.pacing,
			}),
		);
		if (!Array.isArray(body?.data))
			throw unreadable(context, 'a page of the client list holds no list');
		const receivedAt = budget.elapsed();
		last = {
			lateness: receivedAt - firstRequestAt,
			serviceTime: serviceTimeFromDate(headerOf(headers, 'date'), receivedAt - sentAt),
		};
		const clients = (body.data as unknown[]).map((item) => checkedClient(context, item));
		return { ...(body as unknown as ListPage<unknown>), data: clients };
	};
	const received = () => last as ReceivedPage;
	return { fetchPage, received };
}

/** Fetch Test Event's listing, each client once in its newest state; a poll uses sweep.ts. */
export async function listClients(
	this: IPollFunctions,
	budget: PollBudget,
	since?: number,
): Promise<Client[]> {
	const newest = new Map<string, Client>();
	const { fetchPage } = clientPages(this, budget, since);
	for await (const { records } of pages(fetchPage)) {
		for (const client of records) {
			const known = newest.get(client.id);
			if (!known || Date.parse(known.lastModifiedAt) <= Date.parse(client.lastModifiedAt))
				newest.set(client.id, client);
		}
	}
	return [...newest.values()];
}

/** A lower bound on the service's time, from the `Date` of the cheapest request there is. */
export async function serviceTime(
	this: IPollFunctions,
	budget: PollBudget,
): Promise<number | undefined> {
	const sentAt = budget.elapsed();
	const { headers } = await budget.within(
		serviceRequest.call(this, {
			method: 'GET',
			url: '/clients',
			qs: { limit: 1 },
			timeoutMs: budget.requestTimeout(),
			pacing: budget.pacing,
		}),
	);
	return serviceTimeFromDate(headerOf(headers, 'date'), budget.elapsed() - sentAt);
}

export async function fetchFullClient(
	this: IPollFunctions,
	budget: PollBudget,
	id: string,
): Promise<Client> {
	const { body } = await budget.within(
		serviceRequest.call(this, {
			method: 'GET',
			url: `/clients/${encodeURIComponent(id)}`,
			record: { label: 'Client', id },
			timeoutMs: budget.requestTimeout(),
			pacing: budget.pacing,
		}),
	);
	return checkedClient(this, body?.data);
}
