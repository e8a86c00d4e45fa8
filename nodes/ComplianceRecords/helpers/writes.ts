import { createHash } from 'crypto';
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';

import { headerOf, isObject, type ServiceAnswer } from '../transport/answers';
import {
	notSentAgainError,
	type CreateWording,
	type OperationWording,
	severalCreatedError,
} from '../transport/errors';
import { answerIn, FailedRequest, mayHaveActed } from '../transport/failures';
import { pause } from '../transport/pacing';
import type { WriteReadBack } from '../transport/retries';
import { sharedInExecution } from './execution';
import { type RecordKind, shaperOf } from './output';
import type { RecordParameter } from './records';
import { operationError, paginationRouting, recordIn, routedRequest, routedSend } from './routing';
import { COMMIT_LAG_MS, serviceTimeBefore, serviceTimeFromDate } from './serviceTime';

// Every write once per item and run: docs/service-limits.md, "When n8n runs the node again".

export interface UpdateReadBack {
	shows(sent: IDataObject, record: IDataObject): boolean;
	/** Service epoch ms; NaN if the record does not say. */
	changedAt(record: IDataObject): number;
}

export interface ServiceWindow {
	from: number;
	to: number;
}

export interface CreateLookup {
	/** Whether the service refuses this body a second time (409). */
	refusesDuplicate(body: IDataObject): boolean;
	createdWithin(
		context: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
		window: ServiceWindow,
	): Promise<IDataObject[]>;
}

/** An earlier attempt that may have acted (host epoch ms). */
export interface EarlierAttempt {
	since: number;
	until: number;
}

interface ItemWrite extends Partial<EarlierAttempt> {
	request: string;
	id?: string;
}

/** Absent and null alike, objects member by member, lists in any order. */
export function sameValue(shown: unknown, sent: unknown): boolean {
	if (shown === undefined || shown === null || sent === undefined || sent === null)
		return (shown ?? null) === (sent ?? null);
	if (Array.isArray(sent))
		return (
			Array.isArray(shown) &&
			shown.length === sent.length &&
			sent.every((value) => shown.some((other) => sameValue(other, value)))
		);
	if (isObject(sent))
		return (
			isObject(shown) &&
			[...Object.keys(sent), ...Object.keys(shown)].every((key) => sameValue(shown[key], sent[key]))
		);
	return shown === sent;
}

const itemKey = (context: IExecutePaginationFunctions) => {
	const itemIndex = context.getItemIndex();
	return `${context.getWorkflowDataProxy(itemIndex).$runIndex}:${itemIndex}`;
};

const fingerprint = ({ method, url, body }: DeclarativeRestApiSettings.HttpRequestOptions) =>
	createHash('sha256')
		.update(JSON.stringify([method, url, body ?? null]))
		.digest('base64url')
		.slice(0, 22);

/** Enumerable in the node context: n8n saves it with the execution, for a Retry from the list. */
function writeLog(context: IExecutePaginationFunctions): Record<string, ItemWrite> {
	const store = context.getContext('node');
	store.writes ??= {};
	return store.writes as Record<string, ItemWrite>;
}

const writtenRecords = (context: IExecutePaginationFunctions) =>
	sharedInExecution(context, 'writtenRecords', async () => new Map<string, IDataObject>());

/** The record an earlier try of the same request wrote, else `write`'s. */
export async function writtenOnce(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	collection: string,
	write: (earlier?: EarlierAttempt) => Promise<IDataObject>,
): Promise<IDataObject> {
	const log = writeLog(context);
	const key = itemKey(context);
	const request = fingerprint(requestData.options);
	const remembered = await writtenRecords(context);
	let entry = log[key];
	if (entry?.request !== request) {
		// The workflow changed before a Retry: an earlier attempt still counts.
		entry = {
			request,
			...(entry?.since !== undefined && { since: entry.since, until: entry.until }),
		};
		log[key] = entry;
	}
	if (entry.id !== undefined) {
		const url = `${collection}/${encodeURIComponent(entry.id)}`;
		const read = routedRequest(requestData, { method: 'GET', url, body: undefined });
		return remembered.get(`${key} ${request}`) ?? recordIn((await routedSend(context, read))[0]);
	}
	const { since, until } = entry;
	const record = await write(
		since !== undefined && until !== undefined ? { since, until } : undefined,
	);
	log[key] = { request, id: String(record.id) };
	remembered.set(`${key} ${request}`, record);
	return record;
}

async function readBackUpdate(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	rules: UpdateReadBack,
	since: number,
): Promise<WriteReadBack<INodeExecutionData[]>> {
	const read = routedRequest(requestData, { method: 'GET', body: undefined });
	const [answer] = await routedSend(context, read);
	const record = recordIn(answer);
	if (rules.shows(requestData.options.body as IDataObject, record))
		return { state: 'applied', result: [answer] };
	const date = headerOf(answer?.headers as IDataObject | undefined, 'date');
	const began = serviceTimeFromDate(date, Date.now() - since) ?? -Infinity;
	// A change at or after the attempt began (or an unknown time) is not overwritten.
	return rules.changedAt(record) < began ? { state: 'not-applied' } : { state: 'overtaken' };
}

/** Noted if it may have acted; a PATCH that may have been applied is read back first. */
export async function routedWrite(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	readBack?: UpdateReadBack,
): Promise<INodeExecutionData[]> {
	const entry = writeLog(context)[itemKey(context)];
	const since = entry?.since ?? Date.now();
	const check =
		readBack && requestData.options.method === 'PATCH'
			? async () => await readBackUpdate(context, requestData, readBack, since)
			: undefined;
	const send = async () => {
		if (check && entry?.since !== undefined) {
			const found = await check();
			if (found.state === 'applied') return found.result;
			if (found.state === 'overtaken')
				throw new FailedRequest(undefined, { method: 'PATCH', tries: 0, readBack: 'overtaken' });
		}
		return await routedSend(context, requestData, check);
	};
	return await send().catch((error: unknown) => {
		if (entry && mayHaveActed(error)) Object.assign(entry, { since, until: Date.now() });
		throw error;
	});
}

/** Less the records written for other items: identical items make identical records. */
async function notWrittenForOthers(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	lookup: CreateLookup,
	window: ServiceWindow,
): Promise<IDataObject[]> {
	const key = itemKey(context);
	const written = new Set(
		Object.entries(writeLog(context))
			.filter(([other]) => other !== key)
			.map(([, entry]) => entry.id),
	);
	const found = await lookup.createdWithin(context, requestData, window);
	return found.filter((record) => !written.has(String(record.id)));
}

/** After a 409 to a create sent again: the record made while the earlier attempt ran. */
export async function createdByEarlierAttempt(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	lookup: CreateLookup,
	earlier: EarlierAttempt,
	{ refusal, sentAt }: { refusal: ServiceAnswer; sentAt: number },
): Promise<IDataObject | undefined> {
	const date = headerOf(refusal.headers, 'date');
	const from = serviceTimeFromDate(date, Date.now() - earlier.since);
	const to = serviceTimeBefore(date, sentAt - earlier.until);
	if (from === undefined || to === undefined) return undefined;
	return (await notWrittenForOthers(context, requestData, lookup, { from, to }))[0];
}

async function madeByEarlierAttempt(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	earlier: EarlierAttempt,
	{ path, creates, wording }: CreateRouting,
): Promise<IDataObject | undefined> {
	const node = context.getNode();
	const itemIndex = context.getItemIndex();
	const lagLeft = earlier.until + COMMIT_LAG_MS - Date.now();
	if (lagLeft > 0) await pause(lagLeft, context.getExecutionCancelSignal());
	const clock = routedRequest(requestData, {
		method: 'GET',
		url: path,
		qs: { limit: 1 },
		body: undefined,
	});
	const [answer] = await routedSend(context, clock);
	const date = headerOf(answer?.headers as IDataObject | undefined, 'date');
	const from = serviceTimeFromDate(date, Date.now() - earlier.since);
	if (from === undefined) throw notSentAgainError(node, itemIndex);
	// No end: after a gateway's 504, or a timeout, the service may still have been creating it.
	const found = await notWrittenForOthers(context, requestData, creates, { from, to: Infinity });
	if (found.length > 1) throw severalCreatedError(node, itemIndex, found, wording.severalCreated);
	return found[0];
}

interface WriteRouting {
	path: string;
	record?: RecordParameter;
	kind: RecordKind;
	wording?: OperationWording;
}

interface CreateRouting extends WriteRouting {
	method: 'POST';
	creates: CreateLookup;
	wording: CreateWording;
}

interface UpdateRouting extends WriteRouting {
	method: 'PATCH';
	readBack?: UpdateReadBack;
}

export function writeRouting(options: CreateRouting | UpdateRouting): INodePropertyRouting {
	const { method, path, record, kind, wording } = options;
	const create = options.method === 'POST' ? options : undefined;
	const readBack = options.method === 'PATCH' ? options.readBack : undefined;
	async function sendWrite(
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		const body = requestData.options.body as IDataObject;
		const write = async (earlier?: EarlierAttempt) => {
			if (earlier && create && !create.creates.refusesDuplicate(body)) {
				const made = await madeByEarlierAttempt(this, requestData, earlier, create);
				if (made) return made;
			}
			const sentAt = Date.now();
			return await routedWrite(this, requestData, readBack).then(
				([answer]) => recordIn(answer),
				async (error: unknown) => {
					const refusal = answerIn(error);
					const own =
						earlier && create && refusal?.status === 409
							? await createdByEarlierAttempt(this, requestData, create.creates, earlier, {
									refusal,
									sentAt,
								})
							: undefined;
					if (own) return own;
					throw error;
				},
			);
		};
		try {
			const written = await writtenOnce(this, requestData, path, write);
			return [{ json: shaperOf(this, kind)(written) }];
		} catch (error) {
			throw await operationError(this, error, { record, wording });
		}
	}
	return paginationRouting({ method, url: path }, sendWrite, record);
}
