import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
	NodeOperationError,
} from 'n8n-workflow';

import { answerIn, type ServiceAnswer } from '../transport/errors';
import { itemError } from '../transport/itemError';
import { MAX_PAGE_SIZE, pages } from '../transport/paging';
import { headerOf } from '../transport/response';
import { checkRequired } from './checks';
import { sharedInExecution } from './execution';
import { recordOutput } from './output';
import { ClientsByReference, SavedReferences } from './referenceIndex';
import { operationError, routedPages, routedRequest, routedSend } from './routing';
import { firstEvaluationBound, serviceTimeFromDate, type Sighting, watermarkAfter } from './serviceTime';

/*
 * Create or Update by reference number. The service has no lookup by reference number: the node
 * updates the client its saved index names once the changes since confirm it, or else creates
 * the client and, on a 409, lists the firm to find the holder. Why no update lands on the wrong
 * client, and the costs: docs/create-or-update.md.
 */

export const REFERENCE_NUMBER = 'Reference Number';

/**
 * Lists the clients changed since `since` (every client from -Infinity) into `index`; true once
 * the listing is complete, when the watermark moves. `answeredAt` is the service's time of an
 * answer given before the listing began; `goOn` may stop it after a page, told the pages left.
 */
async function listInto(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	index: ClientsByReference,
	since: number,
	{ answeredAt = -Infinity, goOn }: { answeredAt?: number; goOn?: (pagesLeft: number) => boolean } = {},
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
		// A full last page is followed by an empty one (spec §4.5).
		const pagesLeft = total === undefined ? Infinity : Math.floor(total / MAX_PAGE_SIZE) + 1 - ++pagesRead;
		if (next !== undefined && goOn && !goOn(pagesLeft)) return false;
	}
	const firstEvaluation = Math.max(firstEvaluationBound(sightings), answeredAt);
	index.listedUntil = Math.max(index.listedUntil, watermarkAfter(since, firstEvaluation));
	return true;
}

/** The service's time when it answered (its `Date`), or -Infinity. */
const answeredAtOf = (answer: ServiceAnswer) => serviceTimeFromDate(headerOf(answer.headers, 'date'), 0) ?? -Infinity;

/** What `work` resolves to; what it throws, explained for this item (transport/errors.ts). */
async function orExplained<T>(context: IExecutePaginationFunctions, work: Promise<T>): Promise<T> {
	try {
		return await work;
	} catch (error) {
		throw await operationError(context, error);
	}
}

type Outcome = { client: IDataObject } | { refused: ServiceAnswer };

/** One request answering a client; the `refusals` come back as such (a conflict unless told), any other failure is explained. */
async function clientOrRefusal(
	context: IExecutePaginationFunctions,
	request: DeclarativeRestApiSettings.ResultOptions,
	refusals = [409],
): Promise<Outcome> {
	try {
		const [answer] = await routedSend(context, request);
		return { client: (answer.json as IDataObject).data as IDataObject };
	} catch (error) {
		const answer = answerIn(error);
		if (answer && refusals.includes(answer.status)) return { refused: answer };
		throw await operationError(context, error);
	}
}

function changedHands(context: IExecutePaginationFunctions, referenceNumber: string): NodeOperationError {
	return itemError(
		context.getNode(),
		context.getItemIndex(),
		`'${REFERENCE_NUMBER}' "${referenceNumber}" changed hands while the node ran, so no client was updated`,
		'Another user or system gave the number to another client, or took it away, at the same time. Run the node again: it updates the client that has the number then, or creates one if none has.',
	);
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
class ExecutionIndex {
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
	checked(context: IExecutePaginationFunctions, requestData: DeclarativeRestApiSettings.ResultOptions): Promise<boolean> {
		const { check } = this;
		if (check && (check.settledAt === undefined || performance.now() - check.settledAt <= CHECK_VALID_MS)) {
			check.waiting++;
			return check.done;
		}
		const round = { waiting: 1 } as Check;
		round.done = listInto(context, requestData, this.index, this.index.listedUntil, {
			goOn: (pagesLeft) => pagesLeft <= round.waiting,
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

async function executionIndex(context: IExecutePaginationFunctions): Promise<ExecutionIndex> {
	// n8n keeps static data for a published workflow's production executions only; n8n 2.40's
	// queue-mode workers get neither it nor the workflow as published (docs/create-or-update.md).
	const kept = context.getMode() !== 'manual' && context.getWorkflow().active;
	const saved = kept ? await SavedReferences.of(context) : undefined;
	return new ExecutionIndex(saved?.index ?? new ClientsByReference((referenceNumber) => referenceNumber), saved);
}

/** Whether `holder` has the reference number now, read from the service (one GET). */
async function holds(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	index: ClientsByReference,
	holder: string,
	referenceNumber: string,
): Promise<boolean> {
	const url = `/clients/${encodeURIComponent(holder)}`;
	const read = await clientOrRefusal(context, routedRequest(requestData, { method: 'GET', url, body: undefined }), [404]);
	if ('refused' in read) {
		index.forget(holder);
		return false;
	}
	index.learn(read.client);
	return read.client.referenceNumber === referenceNumber;
}

/** The new client, or the client holding the reference number, updated. */
async function createdOrUpdated(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	referenceNumber: string,
	shared: ExecutionIndex,
): Promise<IDataObject> {
	const { index } = shared;
	// An update cannot change the entity (spec §4.1); the reference number makes it conditional.
	const changes = { ...(requestData.options.body as IDataObject) };
	delete changes.entity;
	const update = async (holder: string, refusals?: number[]) => {
		const url = `/clients/${encodeURIComponent(holder)}`;
		return await clientOrRefusal(context, routedRequest(requestData, { method: 'PATCH', url, body: changes }), refusals);
	};
	const answered = (client: IDataObject, created: boolean) => {
		index.learnAnswer(client, referenceNumber, { created });
		return client;
	};

	// The client the saved index names, once the changes since confirm it still has the number.
	if (shared.keptBetweenExecutions && index.holderOf(referenceNumber) !== undefined) {
		const complete = await orExplained(context, shared.checked(context, requestData));
		const holder = index.holderOf(referenceNumber);
		if (holder !== undefined && (complete || (await holds(context, requestData, index, holder, referenceNumber)))) {
			const updated = await update(holder, [404, 409]);
			if ('client' in updated) return answered(updated.client, false);
			if (updated.refused.status === 404) index.forget(holder);
		}
	}

	const created = await clientOrRefusal(context, requestData);
	if ('client' in created) return answered(created.client, true);

	// Shared by the items of the execution: each explains a failure of the listing as its own.
	const wholeFirm = sharedInExecution(context, 'clientsOfTheFirm', async () => {
		await listInto(context, requestData, index, -Infinity, { answeredAt: answeredAtOf(created.refused) });
	});
	await orExplained(context, wholeFirm);
	const updateHolder = async () => {
		const holder = index.holderOf(referenceNumber);
		return holder === undefined ? undefined : await update(holder);
	};
	const updated = await updateHolder();
	if (updated && 'client' in updated) return answered(updated.client, false);

	const answeredAt = answeredAtOf((updated ?? created).refused);
	await orExplained(context, listInto(context, requestData, index, index.listedUntil, { answeredAt }));
	const retried = await updateHolder();
	if (retried && 'client' in retried) return answered(retried.client, false);
	throw changedHands(context, referenceNumber);
}

export async function createOrUpdate(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const body = requestData.options.body as IDataObject;
	body.referenceNumber = checkRequired(body.referenceNumber, REFERENCE_NUMBER, {
		node: this.getNode(),
		itemIndex: this.getItemIndex(),
	});
	const referenceNumber = body.referenceNumber;
	const shared = await orExplained(this, sharedInExecution(this, 'referenceIndex', async () => await executionIndex(this)));
	const client = await shared.during(async () => await createdOrUpdated(this, requestData, referenceNumber, shared));
	return [{ json: recordOutput(this, 'client')(client) }];
}
