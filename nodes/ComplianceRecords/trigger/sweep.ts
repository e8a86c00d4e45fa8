import type { IPollFunctions } from 'n8n-workflow';

import { firstEvaluationBound } from '../helpers/serviceTime';
import { isTemporary } from '../transport/failures';
import { pages } from '../transport/paging';
import type { PollBudget } from './budget';
import { clientKey } from './clientKeys';
import { clientPages } from './listing';
import type { Client } from './validation';

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
	/** After a refused cursor: replay up to and including this client key. */
	replayUntil?: string;
}

/** A listed client; `replayed` while a sweep lists again what it had passed. */
interface ListedClient {
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
				const sightings = clients.map((client) => ({
					modifiedAt: Date.parse(client.lastModifiedAt),
					lateness: page.lateness,
				}));
				const pageOne =
					pageStart === undefined && page.serviceTime !== undefined ? page.serviceTime : -Infinity;
				progress.firstEvaluation = Math.max(
					progress.firstEvaluation,
					pageOne,
					firstEvaluationBound(sightings),
				);
			}
			const listed = clients.map((client) => {
				const replayed = progress.replayUntil !== undefined;
				if (replayed && clientKey(client.id) === progress.replayUntil)
					progress.replayUntil = undefined;
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
		if (progress.next !== undefined && progress.next === saved?.next && isRefusal(error))
			return 'refused' as const;
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
