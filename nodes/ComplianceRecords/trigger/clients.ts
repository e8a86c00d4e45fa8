import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { pages, type ListPage } from '../transport/paging';
import { serviceRequest } from '../transport/request';
import type { Sighting } from './cursor';

/** A client as the list returns it (or in full, with Fetch Full Client). */
export interface Client extends IDataObject {
	id: string;
	lastModifiedAt: string;
}

/** Every client a complete listing returned, once each, and when the poll saw them. */
export interface Listing {
	clients: Client[];
	sightings: Sighting[];
}

/** n8n-core's own default, for n8n versions whose poll context has no `getPollBudgetMs`. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60 * 1000;

/**
 * The poll's time budget and clock. n8n abandons a poll that runs past `getPollBudgetMs()`; the
 * trigger stops first, with an error that says what happened, and emits nothing. Durations come
 * from the host's monotonic clock, never its wall clock.
 */
export class PollBudget {
	private readonly startedAt = performance.now();

	private readonly budgetMs: number;

	constructor(private readonly context: IPollFunctions) {
		this.budgetMs =
			typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : DEFAULT_POLL_BUDGET_MS;
	}

	elapsed(): number {
		return performance.now() - this.startedAt;
	}

	private remaining(): number {
		return Math.max(0, this.budgetMs - this.elapsed());
	}

	/**
	 * The timeout to give a request, so it does not linger after the poll gave up on it: a moment
	 * past the budget, so that {@link within}'s clearer error always comes first.
	 */
	requestTimeout(): number {
		return this.remaining() + 1_000;
	}

	/** Resolves with `request`, or throws once the budget is spent, whichever comes first. */
	async within<T>(request: Promise<T>): Promise<T> {
		const remaining = this.remaining();
		const settled = new AbortController();
		const timeout = sleep(remaining, settled.signal).then(
			() => {
				throw new NodeOperationError(
					this.context.getNode(),
					`The service did not answer within this poll's time budget (${Math.round(this.budgetMs / 1000)} s)`,
					{
						description:
							'Nothing was emitted and the trigger did not move on: the next poll starts again from the same point. If the service is slow, check its status.',
					},
				);
			},
			() => undefined as never, // the request settled first
		);
		try {
			return await Promise.race([request, timeout]);
		} finally {
			settled.abort();
		}
	}
}

function unreadable(context: IPollFunctions, problem: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `The service returned data the trigger cannot read: ${problem}`, {
		description:
			'Nothing was emitted and the trigger did not move on: the next poll reads the same changes again.',
	});
}

/** The epoch ms of a service date-time, or an error naming the field. */
export function timestampOf(context: IPollFunctions, value: unknown, field: string): number {
	const time = typeof value === 'string' ? Date.parse(value) : NaN;
	if (Number.isNaN(time)) throw unreadable(context, `${field} is ${JSON.stringify(value)}, not a date-time`);
	return time;
}

function checkedClient(context: IPollFunctions, item: unknown): Client {
	const client = item as Client;
	if (typeof client !== 'object' || client === null || typeof client.id !== 'string' || !client.id) {
		throw unreadable(context, 'a client has no id');
	}
	timestampOf(context, client.lastModifiedAt, `lastModifiedAt of client ${client.id}`);
	return client;
}

/**
 * Lists every client modified at or after `since` (every client when undefined), page by page
 * to the end, and records when each page arrived. A client listed twice (a position that moved
 * while paging) is kept once, in its newest state. Any failure throws: a partial listing is
 * never used.
 */
export async function listClients(
	this: IPollFunctions,
	budget: PollBudget,
	since?: number,
): Promise<Listing> {
	const newest = new Map<string, Client>();
	const sightings: Sighting[] = [];
	const filter: IDataObject = since === undefined ? {} : { sinceModifiedAt: new Date(since).toISOString() };
	const firstRequestAt = budget.elapsed();
	let pageNumber = 0;
	const fetchPage = async (paging: { limit: number; cursor?: string }) => {
		const page = (await budget.within(
			serviceRequest.call(this, {
				method: 'GET',
				url: '/clients',
				qs: { ...filter, ...paging },
				timeout: budget.requestTimeout(),
			}),
		)) as IDataObject | undefined;
		if (!Array.isArray(page?.data)) throw unreadable(this, 'a list page has no data array');
		return page as unknown as ListPage<unknown>;
	};

	for await (const { records } of pages(fetchPage)) {
		pageNumber++;
		// Page 1 was evaluated at the poll's first evaluation; later pages at most this much later.
		const lateness = pageNumber === 1 ? 0 : budget.elapsed() - firstRequestAt;
		for (const item of records) {
			const client = checkedClient(this, item);
			const modifiedAt = Date.parse(client.lastModifiedAt);
			sightings.push({ modifiedAt, lateness });
			const known = newest.get(client.id);
			if (!known || Date.parse(known.lastModifiedAt) <= modifiedAt) newest.set(client.id, client);
		}
	}
	return { clients: [...newest.values()], sightings };
}

/** GET /clients/{id}: the client with partner, manager, business unit and services. */
export async function fetchFullClient(this: IPollFunctions, budget: PollBudget, id: string): Promise<Client> {
	const response = await budget.within(
		serviceRequest.call(this, {
			method: 'GET',
			url: `/clients/${encodeURIComponent(id)}`,
			record: { label: 'Client', id },
			timeout: budget.requestTimeout(),
		}),
	);
	return checkedClient(this, (response as IDataObject | undefined)?.data);
}
