import type { DeclarativeRestApiSettings, IExecutePaginationFunctions } from 'n8n-workflow';

import { routedPages } from '../../../helpers/lists';
import { routedRequest } from '../../../helpers/routing';
import { firstEvaluationBound, type Sighting, watermarkAfter } from '../../../helpers/serviceTime';
import { MAX_PAGE_SIZE, pages } from '../../../transport/paging';
import { ClientsByReference } from './referenceIndex';

/** True once the listing is complete (the watermark moves); `continueAfter` may stop it early. */
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

// The check must stay close to the update: n8n's batching may space the items.
const CHECK_VALID_MS = 1_000;

interface Listing<T> {
	done: Promise<T>;
	startedBy: string | undefined;
}

interface Check extends Listing<boolean> {
	/** Items that would each read their client instead of the pages left. */
	waiting: number;
	toTheEnd: boolean;
	settled?: { at: number; complete: boolean };
}

export class SharedIndex {
	readonly index = new ClientsByReference();

	/** The firm was listed, and nothing trimmed since. */
	complete = false;

	private running = 0;

	private check?: Check;

	private wholeFirm?: Listing<void>;

	constructor(private readonly settle: (shared: SharedIndex) => void = () => {}) {}

	get idle(): boolean {
		return this.running === 0;
	}

	async during<T>(work: () => Promise<T>): Promise<T> {
		this.running++;
		try {
			return await work();
		} finally {
			if (--this.running === 0) this.settle(this);
		}
	}

	/** False when listing the rest would cost more than a GET for each item waiting. */
	async checked(
		context: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
		{ toTheEnd = false }: { toTheEnd?: boolean } = {},
	): Promise<boolean> {
		const { check } = this;
		const { settled } = check ?? {};
		// An item refused a create needs the changes since that refusal.
		if (
			check &&
			(!settled ||
				(settled.complete && !toTheEnd && performance.now() - settled.at <= CHECK_VALID_MS))
		) {
			check.waiting++;
			check.toTheEnd ||= toTheEnd;
			return await joined(
				context,
				check,
				async () => await this.checked(context, requestData, { toTheEnd }),
			);
		}
		const round: Check = {
			waiting: 1,
			toTheEnd,
			startedBy: context.getExecutionId(),
			done: Promise.resolve(false),
		};
		round.done = listInto(context, requestData, this.index, this.index.listedUntil, {
			continueAfter: (pagesLeft) => round.toTheEnd || pagesLeft <= round.waiting,
		}).then(
			(complete) => {
				round.settled = { at: performance.now(), complete };
				return complete;
			},
			(error: unknown) => {
				if (this.check === round) this.check = undefined;
				throw error;
			},
		);
		this.check = round;
		return await round.done;
	}

	async holderListed(
		context: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
		referenceNumber: string,
		answeredAt: number,
	): Promise<void> {
		if (this.complete) {
			await this.checked(context, requestData, { toTheEnd: true });
			if (this.index.holderOf(referenceNumber) !== undefined) return;
		}
		await this.wholeFirmListed(context, requestData, answeredAt);
	}

	private async wholeFirmListed(
		context: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
		answeredAt: number,
	): Promise<void> {
		const { wholeFirm } = this;
		if (wholeFirm) {
			return await joined(
				context,
				wholeFirm,
				async () => await this.wholeFirmListed(context, requestData, answeredAt),
			);
		}
		const listing: Listing<void> = {
			startedBy: context.getExecutionId(),
			done: Promise.resolve(),
		};
		const ended = () => {
			if (this.wholeFirm === listing) this.wholeFirm = undefined;
		};
		listing.done = listInto(context, requestData, this.index, -Infinity, { answeredAt }).then(
			() => {
				this.complete = true;
				ended();
			},
			(error: unknown) => {
				ended();
				throw error;
			},
		);
		this.wholeFirm = listing;
		await listing.done;
	}
}

/** A listing another execution started and lost (its timeout, its cancellation) is sent again. */
async function joined<T>(
	context: IExecutePaginationFunctions,
	listing: Listing<T>,
	ownListing: () => Promise<T>,
): Promise<T> {
	return await listing.done.catch(async (error: unknown) => {
		if (listing.startedBy === context.getExecutionId()) throw error;
		return await ownListing();
	});
}
