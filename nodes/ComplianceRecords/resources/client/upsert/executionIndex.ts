import type { DeclarativeRestApiSettings, IExecutePaginationFunctions } from 'n8n-workflow';

import { routedPages } from '../../../helpers/lists';
import { routedRequest } from '../../../helpers/routing';
import { firstEvaluationBound, type Sighting, watermarkAfter } from '../../../helpers/serviceTime';
import { MAX_PAGE_SIZE, pages } from '../../../transport/paging';
import { ClientsByReference, SavedReferences } from './referenceIndex';

/* What Create or Update's items of one execution share: the index, and the listings that fill and check it. */

/**
 * Lists the clients changed since `since` (every client from -Infinity) into `index`; true once
 * the listing is complete, when the watermark moves. `answeredAt` is the service's time of an
 * answer given before the listing began; `continueAfter` may stop it after a page, told the pages left.
 */
export async function listInto(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	index: ClientsByReference,
	since: number,
	{
		answeredAt = -Infinity,
		continueAfter,
	}: { answeredAt?: number; continueAfter?: (pagesLeft: number) => boolean } = {},
): Promise<boolean> {
	const filter = since === -Infinity ? {} : { sinceModifiedAt: new Date(since).toISOString() };
	const list = routedRequest(requestData, { method: 'GET', url: '/clients', body: undefined });
	const startedAt = performance.now();
	const sightings: Sighting[] = [];
	let pagesRead = 0;
	for await (const { records, next, total } of pages(routedPages(context, list, filter))) {
		const lateness = performance.now() - startedAt;
		for (const client of records) {
			const modifiedAt = index.learn(client);
			if (Number.isFinite(modifiedAt)) sightings.push({ modifiedAt, lateness });
		}
		// A full last page is followed by an empty one.
		const pagesLeft =
			total === undefined ? Infinity : Math.floor(total / MAX_PAGE_SIZE) + 1 - ++pagesRead;
		if (next !== undefined && continueAfter && !continueAfter(pagesLeft)) return false;
	}
	const firstEvaluation = Math.max(firstEvaluationBound(sightings), answeredAt);
	index.listedUntil = Math.max(index.listedUntil, watermarkAfter(since, firstEvaluation));
	return true;
}

/**
 * How long a listing of the changes vouches for the index to items that come after it (n8n's
 * batching spaces them): the check must stay close to the update.
 */
const CHECK_VALID_MS = 1_000;

/** One listing of the changes, and the items waiting for it. */
interface Check {
	done: Promise<boolean>;
	waiting: number;
	/** Host-monotonic ms when it ended. */
	settledAt?: number;
}

/** What the items of one execution share: the index, and the listing of changes that checks it. */
export class ExecutionIndex {
	private running = 0;

	private check?: Check;

	constructor(
		readonly index: ClientsByReference,
		/** Set in production executions, whose static data n8n saves. */
		private readonly saved?: SavedReferences,
	) {}

	get keptBetweenExecutions(): boolean {
		return this.saved !== undefined;
	}

	/** Runs one item's work; the index is saved once no item is running. */
	async during<T>(work: () => Promise<T>): Promise<T> {
		this.running++;
		try {
			return await work();
		} finally {
			if (--this.running === 0) this.saved?.save();
		}
	}

	/**
	 * Resolves once the index holds the firm's changes since its watermark: true when they were
	 * all listed; false when listing the rest would cost more requests than reading the client of
	 * each item waiting (one GET each).
	 */
	checked(
		context: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<boolean> {
		const { check } = this;
		if (
			check &&
			(check.settledAt === undefined || performance.now() - check.settledAt <= CHECK_VALID_MS)
		) {
			check.waiting++;
			return check.done;
		}
		const round = { waiting: 1 } as Check;
		round.done = listInto(context, requestData, this.index, this.index.listedUntil, {
			continueAfter: (pagesLeft) => pagesLeft <= round.waiting,
		}).then(
			(complete) => {
				round.settledAt = performance.now();
				return complete;
			},
			(error: unknown) => {
				if (this.check === round) this.check = undefined;
				throw error;
			},
		);
		this.check = round;
		return round.done;
	}
}

export async function executionIndex(
	context: IExecutePaginationFunctions,
): Promise<ExecutionIndex> {
	// n8n keeps static data for a published workflow's production executions only; n8n 2.40's
	// queue-mode workers get neither it nor the workflow as published (docs/create-or-update.md).
	const kept = context.getMode() !== 'manual' && context.getWorkflow().active;
	const saved = kept ? await SavedReferences.of(context) : undefined;
	return new ExecutionIndex(
		saved?.index ?? new ClientsByReference((referenceNumber) => referenceNumber),
		saved,
	);
}
