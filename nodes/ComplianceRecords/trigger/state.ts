import type { IDataObject } from 'n8n-workflow';

import { decodeSeen, encodeSeen, type StreamCursor } from './cursor';
import { DueMemory } from './reviewWindow';

/*
 * What the trigger keeps between polls, in the node's static data
 * (`getWorkflowStaticData('node')`) and nowhere else.
 *
 * How n8n keeps it (read in n8n-core 2.40 and n8n's cli): the poll mutates the object in place;
 * with the in-memory poller, the same Workflow object serves every poll and n8n writes its
 * static data to the database when a poll emits (`__emit` calls `saveStaticData` before the
 * execution starts); a poll that emits nothing changes memory only. With n8n's durable
 * scheduler, each tick reads the static data fresh from the database, runs `poll()` inside a
 * staging scope, and commits the cursor with the execution, or on its own when nothing was
 * emitted; an occurrence may run twice from the same saved state (at least once). When
 * `poll()` throws, n8n records an error execution and commits nothing.
 *
 * So the trigger writes its state once, after the whole poll succeeded, right before returning
 * (a failed poll leaves it untouched), and a re-run from an older saved state is safe: it
 * emits only what that state has not handled. Top-level keys are assigned, never mutated in
 * place, so n8n's change tracking (an observable proxy one level deep) always notices.
 */

export type TriggerEvent = 'clientModified' | 'amlDeterminationCompleted' | 'reviewDue';

const VERSION = 1;

export interface SavedState {
	event: TriggerEvent;
	/** The watermark; undefined when every client must be listed (no client seen yet). */
	cursor: StreamCursor | undefined;
	/** reviewDue only: the window length it was recorded for, the last scan's date, the memory. */
	reviewDays?: number;
	scannedOn?: string;
	due?: DueMemory;
}

/**
 * The saved state, or undefined when there is none for this configuration: never polled, or
 * the event (or review window) changed since, or data this version did not write. The caller
 * then starts over as on activation.
 */
export function readState(
	staticData: IDataObject,
	event: TriggerEvent,
	reviewDays?: number,
): SavedState | undefined {
	if (staticData.version !== VERSION || staticData.event !== event) return undefined;
	if (event === 'reviewDue' && staticData.reviewDays !== reviewDays) return undefined;

	let cursor: StreamCursor | undefined;
	if (staticData.since !== null) {
		const since = typeof staticData.since === 'string' ? Date.parse(staticData.since) : NaN;
		const seen = decodeSeen(staticData.seen ?? {}, since);
		if (Number.isNaN(since) || !seen) return undefined;
		cursor = { since, seen };
	}
	if (event !== 'reviewDue') return cursor && { event, cursor };

	const due = DueMemory.decode(staticData.due);
	if (!due || typeof staticData.scannedOn !== 'string') return undefined;
	return { event, cursor, reviewDays, scannedOn: staticData.scannedOn, due };
}

/** Which write of the state a poll started from; see {@link commitState}. */
export function generationOf(staticData: IDataObject): number {
	return typeof staticData.generation === 'number' ? staticData.generation : 0;
}

/**
 * Replaces the static data with `state`, unless another poll of this node committed since this
 * one started (n8n's in-memory poller can start a poll while a slow one still runs): then the
 * newer poll has already emitted everything this one found, so this one must emit nothing and
 * write nothing. Returns whether it wrote.
 */
export function commitState(staticData: IDataObject, startedFrom: number, state: SavedState): boolean {
	if (generationOf(staticData) !== startedFrom) return false;
	const encoded: IDataObject = {
		version: VERSION,
		event: state.event,
		generation: startedFrom + 1,
		since: state.cursor ? new Date(state.cursor.since).toISOString() : null,
	};
	if (state.cursor && state.cursor.seen.size > 0) encoded.seen = encodeSeen(state.cursor);
	if (state.event === 'reviewDue') {
		encoded.reviewDays = state.reviewDays;
		encoded.scannedOn = state.scannedOn;
		encoded.due = state.due?.encode() ?? {};
	}
	for (const key of Object.keys(staticData)) if (!(key in encoded)) delete staticData[key];
	for (const [key, value] of Object.entries(encoded)) staticData[key] = value;
	return true;
}
