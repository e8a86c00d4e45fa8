import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { firstEvaluationBound, serviceTimeFromDate } from '../helpers/serviceTime';
import { type ListPage, pages } from '../transport/paging';
import { isTemporary } from '../transport/errors';
import { serviceRequest } from '../transport/request';
import { headerOf } from '../transport/response';
import type { PollBudget } from './budget';
import { clientKey } from './clientKeys';

/** A client as the list returns it (or in full, with Fetch Full Client). */
export interface Client extends IDataObject {
	id: string;
	lastModifiedAt: string;
}

function unreadable(context: IPollFunctions, problem: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `The service returned data the trigger cannot read: ${problem}`, {
		description:
			"No workflow was started for these changes and the trigger keeps its place: the next poll reads the same changes again. If this comes back at every poll, check that the credential's 'Base URL' is the service's API address; if it is, give this message to the service's support.",
	});
}

/** The epoch ms of a service date-time, or an error naming the field. */
export function timestampOf(context: IPollFunctions, value: unknown, field: string): number {
	const time = typeof value === 'string' ? Date.parse(value) : NaN;
	if (Number.isNaN(time)) throw unreadable(context, `${field} is ${JSON.stringify(value)}, not a date and time`);
	return time;
}

function checkedClient(context: IPollFunctions, item: unknown): Client {
	const client = item as Client;
	if (typeof client !== 'object' || client === null || typeof client.id !== 'string' || !client.id) {
		throw unreadable(context, 'a client has no ID');
	}
	timestampOf(context, client.lastModifiedAt, `the last change time of client ${client.id}`);
	return client;
}

/** When a page of `GET /clients` came, and what its `Date` says. */
interface ReceivedPage {
	/** Host-monotonic ms from sending the poll's first page request to receiving this page. */
	lateness: number;
	/** {@link serviceTimeFromDate} of this answer, when it has a usable `Date`. */
	serviceTime: number | undefined;
}

/**
 * The trigger's `GET /clients` for the one paging loop (`pages()`): every client modified at or
 * after `since` (every client when undefined). `received()` describes the page last fetched.
 */
function clientPages(context: IPollFunctions, budget: PollBudget, since: number | undefined) {
	const filter: IDataObject = since === undefined ? {} : { sinceModifiedAt: new Date(since).toISOString() };
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
		if (!Array.isArray(body?.data)) throw unreadable(context, 'a page of the client list holds no list');
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

/**
 * Every client modified at or after `since` (all when undefined), to the end of the list, each
 * once in its newest state: Fetch Test Event's sampler (a poll lists through {@link sweep}).
 */
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
			if (!known || Date.parse(known.lastModifiedAt) <= Date.parse(client.lastModifiedAt)) newest.set(client.id, client);
		}
	}
	return [...newest.values()];
}

/**
 * The service's time, as a lower bound (epoch ms), from the `Date` of its answer to the cheapest
 * list request there is; undefined when the answer has no usable `Date`.
 */
export async function serviceTime(this: IPollFunctions, budget: PollBudget): Promise<number | undefined> {
	const sentAt = budget.elapsed();
	const { headers } = await budget.within(
		serviceRequest.call(this, { method: 'GET', url: '/clients', qs: { limit: 1 }, timeoutMs: budget.requestTimeout(), pacing: budget.pacing }),
	);
	return serviceTimeFromDate(headerOf(headers, 'date'), budget.elapsed() - sentAt);
}

/**
 * A listing in progress across polls: what a poll saves when the budget ends it before the list
 * does, so that the next poll resumes it. Its filter is the caller's (a page cursor is bound to
 * the filter it was issued for).
 */
export interface Sweep {
	/** The page cursor to resume at; undefined: the first page. */
	next?: string;
	/** A lower bound (service epoch ms) on when the service evaluated the sweep's first page. */
	firstEvaluation: number;
	/** The key of the last client of the last page handled whole. */
	last?: string;
	/** After a refused cursor: replay up to and including this client key (see cursor.ts). */
	replayUntil?: string;
}

/** A listed client; `replayed` while a sweep lists again what it had passed (see cursor.ts). */
export interface ListedClient {
	client: Client;
	replayed: boolean;
}

/**
 * Handles one page, in list order; resolves false when it stopped part-way (the budget, or the
 * service limiting requests: {@link fullClientOrStop}), after handling a prefix of the page, so
 * that the next poll lists the page again.
 */
type PageHandler = (clients: ListedClient[]) => Promise<boolean>;

/** A sweep after a poll: `complete` when the list ended, else what to save for the next poll. */
interface SweepProgress {
	complete: boolean;
	sweep: Sweep;
}

function isRefusal(error: unknown): boolean {
	return String((error as { httpCode?: unknown }).httpCode) === '400';
}

/**
 * One poll's part of a sweep: from the saved cursor (or the first page, measuring the sweep's
 * first evaluation), page by page while the budget has room. A refused (expired) saved cursor
 * restarts at the first page, replaying what was passed; any other failure throws.
 */
export async function sweep(
	this: IPollFunctions,
	budget: PollBudget,
	since: number | undefined,
	saved: Sweep | undefined,
	handle: PageHandler,
): Promise<SweepProgress> {
	const progress: Sweep = { firstEvaluation: -Infinity, ...saved };
	const measuring = saved === undefined;
	let pagesHandled = 0;
	let handling = false;

	const run = async (): Promise<boolean> => {
		const { fetchPage, received } = clientPages(this, budget, since);
		let pageStart = progress.next;
		for await (const { records: clients, next } of pages(fetchPage, { from: progress.next })) {
			const page = received();
			if (measuring) {
				const sightings = clients.map((client) => ({ modifiedAt: Date.parse(client.lastModifiedAt), lateness: page.lateness }));
				const pageOne = pageStart === undefined && page.serviceTime !== undefined ? page.serviceTime : -Infinity;
				progress.firstEvaluation = Math.max(progress.firstEvaluation, pageOne, firstEvaluationBound(sightings));
			}
			const listed = clients.map((client) => {
				const replayed = progress.replayUntil !== undefined;
				if (replayed && clientKey(client.id) === progress.replayUntil) progress.replayUntil = undefined;
				return { client, replayed };
			});
			handling = true;
			const whole = await handle(listed);
			handling = false;
			if (!whole) {
				progress.next = pageStart;
				return false;
			}
			const lastClient = clients.at(-1);
			if (lastClient && !listed.at(-1)?.replayed) progress.last = clientKey(lastClient.id);
			progress.next = pageStart = next;
			pagesHandled++;
			if (next !== undefined && !budget.hasRoom()) return false;
		}
		return true;
	};

	// Only the saved cursor, on the poll's first request, may be refused this way. A service
	// limiting requests or briefly down, past what the poll could wait, ends the poll as its budget
	// would once it has pages to keep; before, the poll fails and n8n waits before the next one.
	// The errors passed on are already the n8n errors of the failed request.
	const stopWhenLimited = (error: unknown) => {
		if (!handling && pagesHandled > 0 && isTemporary(error)) return false;
		throw error;
	};
	const outcome = await run().catch((error: unknown) => {
		if (progress.next !== undefined && progress.next === saved?.next && isRefusal(error)) return 'refused' as const;
		return stopWhenLimited(error);
	});
	let complete: boolean;
	if (outcome === 'refused') {
		progress.next = undefined;
		progress.replayUntil ??= progress.last;
		complete = await run().catch(stopWhenLimited);
	} else {
		complete = outcome;
	}
	if (complete) return { complete, sweep: { firstEvaluation: progress.firstEvaluation } };
	return { complete, sweep: progress };
}

/**
 * The full client; undefined when the poll has progress to keep (`progressed`) and either its
 * budget runs short or the service is limiting requests or briefly down past what the poll can
 * wait: the page handler then stops part-way.
 */
export async function fullClientOrStop(
	budget: PollBudget,
	fullClient: (client: Client) => Promise<Client>,
	client: Client,
	progressed: boolean,
): Promise<Client | undefined> {
	if (progressed && !budget.hasRoom()) return undefined;
	return await fullClient(client).catch((error: unknown) => {
		if (progressed && isTemporary(error)) return undefined;
		throw error;
	});
}

/** GET /clients/{id}: the client with partner, manager, business unit and services. */
export async function fetchFullClient(this: IPollFunctions, budget: PollBudget, id: string): Promise<Client> {
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
