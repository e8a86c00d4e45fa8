import { watermarkAfter } from '../helpers/serviceTime';
import { clientKey, decodeKeyGroups, encodeKeyGroups } from './clientKeys';

// Why each rule holds: docs/trigger.md, "How a poll works" and "Backlogs".

/** Changes handled at or after the watermark: event time (epoch ms) -> client keys. */
export type Seen = Map<number, Set<string>>;

export interface StreamCursor {
	/** The watermark, a service timestamp. */
	since: number;
	seen: Seen;
}

export interface HandledChange {
	clientId: string;
	eventTime: number;
}

const inSeen = (seen: Seen, key: string, eventTime: number) =>
	seen.get(eventTime)?.has(key) === true;

export function isNewChange(
	cursor: StreamCursor,
	clientId: string,
	eventTime: number,
	alsoSeen: Seen[] = [],
): boolean {
	if (eventTime < cursor.since) return false;
	const key = clientKey(clientId);
	return [cursor.seen, ...alsoSeen].every((seen) => !inSeen(seen, key, eventTime));
}

export function rememberIn(seen: Seen, { clientId, eventTime }: HandledChange): void {
	const keys = seen.get(eventTime) ?? new Set<string>();
	keys.add(clientKey(clientId));
	seen.set(eventTime, keys);
}

function mergeSeen(
	sets: Array<Seen | Iterable<HandledChange>>,
	keep: (eventTime: number, key: string) => boolean,
): Seen {
	const merged: Seen = new Map();
	const add = (eventTime: number, key: string) => {
		if (!keep(eventTime, key)) return;
		const keys = merged.get(eventTime) ?? new Set<string>();
		keys.add(key);
		merged.set(eventTime, keys);
	};
	for (const set of sets) {
		if (set instanceof Map) {
			for (const [eventTime, keys] of set) for (const key of keys) add(eventTime, key);
		} else {
			for (const { clientId, eventTime } of set) add(eventTime, clientKey(clientId));
		}
	}
	return merged;
}

export function completeCursor(
	cursor: StreamCursor,
	firstEvaluation: number,
	handled: Array<Seen | Iterable<HandledChange>>,
): StreamCursor {
	const since = watermarkAfter(cursor.since, firstEvaluation);
	return { since, seen: mergeSeen([cursor.seen, ...handled], (eventTime) => eventTime >= since) };
}

/** Entries at or after the floor, and those of the page the sweep stopped in. */
export function sweepSeenAfterStop(
	handled: Array<Seen | Iterable<HandledChange>>,
	floor: number,
	unfinishedPage: ReadonlySet<string>,
): Seen {
	return mergeSeen(handled, (eventTime, key) => eventTime >= floor || unfinishedPage.has(key));
}

/** Event times as base-36 offsets from the watermark. */
export function encodeSeen(cursor: StreamCursor): Record<string, string> {
	return encodeKeyGroups(
		[...cursor.seen].map(([time, keys]) => [(time - cursor.since).toString(36), keys]),
	);
}

export function decodeSeen(encoded: unknown, since: number): Seen | undefined {
	const groups = decodeKeyGroups(encoded, (offset) => /^[0-9a-z]+$/.test(offset));
	if (!groups) return undefined;
	return new Map(
		[...groups].map(([offset, keys]) => [since + parseInt(offset, 36), new Set(keys)]),
	);
}
