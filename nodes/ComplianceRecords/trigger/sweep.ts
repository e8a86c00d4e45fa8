import type { IPollFunctions } from 'n8n-workflow';

import { firstEvaluationBound } from '../helpers/serviceTime';
import { isTemporary } from '../transport/failures';
import { pages } from '../transport/paging';
import type { PollBudget } from './budget';
import { clientKey } from './clientKeys';
import { clientPages } from './listing';
import type { Client } from './validation';

/** A listing spanning polls (docs/trigger.md, "Backlogs"); its cursor is bound to its filter. */
export interface Sweep {
	next?: string;
	/** A lower bound (service epoch ms) on when the service evaluated the first page. */
	firstEvaluation: number;
	/** The key of the last client of the last page handled whole. */
	last?: string;
	replayUntil?: string;
}

interface ListedClient {
	client: Client;
	replayed: boolean;
}

/** Resolves false when it stopped part-way through the page: the next poll lists it again. */
type PageHandler = (clients: ListedClient[]) => Promise<boolean>;

interface SweepProgress {
	complete: boolean;
	sweep: Sweep;
}

function isRefusal(error: unknown): boolean {
	return String((error as { httpCode?: unknown }).httpCode) === '400';
}

/** One poll's part of a sweep; a refused (expired) saved cursor restarts it, replaying. */
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

	// Limited past what the poll can wait: it stops as at its budget's end once it has pages to
	// keep; before, it fails, so that n8n waits before the next poll.
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

/** Undefined when a poll with progress to keep must stop: budget short, or service limiting. */
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
