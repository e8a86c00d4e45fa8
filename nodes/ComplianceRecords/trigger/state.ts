import type { IDataObject } from 'n8n-workflow';

import { CLIENT_KEY_LENGTH } from './clientKeys';
import { DueMemory } from './dueMemory';
import type { StreamState, StreamSweep } from './events/changes';
import type { ReviewState, ReviewSweep } from './events/reviewDue';
import { decodeSeen, encodeSeen, type Seen } from './watermark';

// Why: docs/trigger.md, "The first poll, and n8n's schedulers" and "The saved state".

export type TriggerEvent = 'clientModified' | 'amlDeterminationCompleted' | 'reviewDue';

/** 1: the released 0.1.0 (no listing across polls, no activation copy); read and migrated. */
const VERSION = 2;

export type SavedState = (
	| { event: 'clientModified' | 'amlDeterminationCompleted'; stream: StreamState }
	| { event: 'reviewDue'; reviewDays: number; review: ReviewState }
) & {
	/** Host epoch ms: orders an activation copy against other node state. Absent in 0.1.0. */
	startedAt?: number;
};

const isoOrNull = (time: number | undefined) =>
	time !== undefined && Number.isFinite(time) ? new Date(time).toISOString() : null;

function timeOf(value: unknown, absent: number | undefined): number | undefined | null {
	if (value === null) return absent ?? null;
	const time = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isNaN(time) ? undefined : time;
}

const isKey = (value: unknown) =>
	value === undefined || (typeof value === 'string' && value.length === CLIENT_KEY_LENGTH);

type DecodedSweep = Omit<StreamSweep, 'seen'> & ReviewSweep & { seen?: Seen };

function decodeSweep(encoded: unknown, since: number | undefined): DecodedSweep | undefined | null {
	if (encoded === undefined) return undefined;
	if (typeof encoded !== 'object' || encoded === null) return null;
	const { next, firstEvaluation, last, replayUntil, seen, recording, scan } =
		encoded as IDataObject;
	const evaluated = timeOf(firstEvaluation, -Infinity);
	if (typeof evaluated !== 'number' || (next !== undefined && typeof next !== 'string'))
		return null;
	if (!isKey(last) || !isKey(replayUntil) || (scan !== undefined && typeof scan !== 'string'))
		return null;
	const decoded: DecodedSweep = { firstEvaluation: evaluated };
	if (next !== undefined) decoded.next = next as string;
	if (last !== undefined) decoded.last = last as string;
	if (replayUntil !== undefined) decoded.replayUntil = replayUntil as string;
	if (recording === true) decoded.recording = true;
	if (scan !== undefined) decoded.scan = scan as string;
	if (seen !== undefined) {
		const decodedSeen = since === undefined ? undefined : decodeSeen(seen, since);
		if (!decodedSeen) return null;
		decoded.seen = decodedSeen;
	}
	return decoded;
}

function encodeSweep(sweep: DecodedSweep, since: number | undefined): IDataObject {
	const { next, firstEvaluation, last, replayUntil, seen, recording, scan } = sweep;
	const encoded: IDataObject = { firstEvaluation: isoOrNull(firstEvaluation) };
	if (next !== undefined) encoded.next = next;
	if (last !== undefined) encoded.last = last;
	if (replayUntil !== undefined) encoded.replayUntil = replayUntil;
	if (seen && seen.size > 0 && since !== undefined) encoded.seen = encodeSeen({ since, seen });
	if (recording) encoded.recording = true;
	if (scan !== undefined) encoded.scan = scan;
	return encoded;
}

/** This format or 0.1.0's; undefined starts over as on activation. */
function readState(
	staticData: unknown,
	event: TriggerEvent,
	reviewDays?: number,
): SavedState | undefined {
	if (typeof staticData !== 'object' || staticData === null) return undefined;
	const data = staticData as IDataObject;
	if ((data.version !== 1 && data.version !== VERSION) || data.event !== event) return undefined;
	if (event === 'reviewDue' && data.reviewDays !== reviewDays) return undefined;

	const since = timeOf(data.since, undefined);
	if (since === undefined) return undefined;
	const seen = since === null ? new Map() : decodeSeen(data.seen ?? {}, since);
	const sweep = decodeSweep(data.sweep, since ?? undefined);
	if (!seen || sweep === null) return undefined;

	const startedAt = startedAtOf(data);
	if (event !== 'reviewDue') {
		if (since === null) return undefined; // 0.1.0 never wrote this for a stream
		const stream: StreamState = { cursor: { since, seen } };
		if (sweep) {
			const { next, firstEvaluation, last, replayUntil, recording } = sweep;
			stream.sweep = {
				next,
				firstEvaluation,
				last,
				replayUntil,
				recording,
				seen: sweep.seen ?? new Map(),
			};
		}
		return { event, stream, startedAt };
	}
	const due = DueMemory.decode(data.due);
	if (!due || (data.scannedOn !== undefined && typeof data.scannedOn !== 'string'))
		return undefined;
	const review: ReviewState = {
		since: since ?? undefined,
		scannedOn: data.scannedOn as string | undefined,
		due,
	};
	if (sweep) review.sweep = sweep;
	return { event, reviewDays: reviewDays as number, review, startedAt };
}

function startedAtOf(data: IDataObject): number | undefined {
	return typeof data.startedAt === 'number' && Number.isFinite(data.startedAt)
		? data.startedAt
		: undefined;
}

/** The node's own state; else the activation copy, when n8n kept nothing the node wrote since. */
export function stateToResume(
	staticData: IDataObject,
	activationCopy: unknown,
	event: TriggerEvent,
	reviewDays?: number,
): SavedState | undefined {
	const own = readState(staticData, event, reviewDays);
	if (own) return own;
	const copy = readState(activationCopy, event, reviewDays);
	if (!copy) return undefined;
	return isUnused(staticData) ||
		(copy.startedAt ?? -Infinity) > (startedAtOf(staticData) ?? -Infinity)
		? copy
		: undefined;
}

export function generationOf(staticData: IDataObject): number {
	return typeof staticData.generation === 'number' ? staticData.generation : 0;
}

function isUnused(staticData: IDataObject): boolean {
	return staticData.version === undefined;
}

function encodeState(state: SavedState, generation: number): IDataObject {
	const encoded: IDataObject = { version: VERSION, event: state.event, generation };
	if (state.startedAt !== undefined) encoded.startedAt = state.startedAt;
	if (state.event !== 'reviewDue') {
		const { cursor, sweep } = state.stream;
		encoded.since = isoOrNull(cursor.since);
		if (cursor.seen.size > 0) encoded.seen = encodeSeen(cursor);
		if (sweep) encoded.sweep = encodeSweep(sweep, cursor.since);
		return encoded;
	}
	const { since, scannedOn, due, sweep } = state.review;
	encoded.since = isoOrNull(since);
	encoded.reviewDays = state.reviewDays;
	if (scannedOn !== undefined) encoded.scannedOn = scannedOn;
	encoded.due = due.encode();
	if (sweep) encoded.sweep = encodeSweep(sweep, since);
	return encoded;
}

/** False if an overlapping poll committed first; sets top-level keys, which n8n sees change. */
export function commitState(
	staticData: IDataObject,
	startedFrom: number,
	state: SavedState,
): boolean {
	if (generationOf(staticData) !== startedFrom) return false;
	const encoded = encodeState(state, startedFrom + 1);
	for (const key of Object.keys(staticData)) if (!(key in encoded)) delete staticData[key];
	for (const [key, value] of Object.entries(encoded)) staticData[key] = value;
	return true;
}

export function activationCopyKey(nodeName: string): string {
	return `complianceRecordsTrigger:${nodeName}`;
}

export function keepActivationCopy(
	workflowStaticData: IDataObject,
	nodeName: string,
	state: SavedState,
): void {
	workflowStaticData[activationCopyKey(nodeName)] = encodeState(state, 1);
}
