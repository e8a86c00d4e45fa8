import { createHash } from 'crypto';

/*
 * The trigger's watermark, seen-set and sweep rules, as pure functions. Why each rule holds:
 * docs/trigger.md ("How a poll works", "Backlogs: a listing that spans polls").
 */

/** How long a change may take to appear in the list after the `lastModifiedAt` it carries (not in the spec). */
export const COMMIT_LAG_MS = 5_000;

/** One client as a poll listed it. */
export interface Sighting {
	/** Its `lastModifiedAt`, epoch ms: a service timestamp. */
	modifiedAt: number;
	/** Host-monotonic ms from sending the listing's first request to receiving this client's page. */
	lateness: number;
}

/** The resolution of an HTTP `Date` (whole seconds). */
export const DATE_RESOLUTION_MS = 1_000;

/** RFC 9110's preferred format (IMF-fixdate), the one origin servers generate. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A lower bound on when the service evaluated a request: its answer's `Date` less the round trip
 * and the header's resolution; undefined without a `Date` in IMF-fixdate form.
 */
export function serviceTimeFromDate(date: unknown, roundTripMs: number): number | undefined {
	if (typeof date !== 'string' || !IMF_FIXDATE.test(date)) return undefined;
	const time = Date.parse(date);
	return Number.isNaN(time) ? undefined : time - Math.ceil(roundTripMs) - DATE_RESOLUTION_MS;
}

/** A lower bound on when the service evaluated a listing's first page, from what it listed: -Infinity without sightings. */
export function firstEvaluationBound(sightings: Iterable<Sighting>): number {
	let bound = -Infinity;
	for (const { modifiedAt, lateness } of sightings) bound = Math.max(bound, modifiedAt - Math.ceil(lateness));
	return bound;
}

/** The watermark after a complete listing whose first page was evaluated no earlier than `firstEvaluation`; never backwards. */
export function watermarkAfter(watermark: number, firstEvaluation: number): number {
	return Math.max(watermark, firstEvaluation - COMMIT_LAG_MS);
}

/** Changes handled at or after the watermark (listed again by the next poll): event time (epoch ms) -> client keys. */
export type Seen = Map<number, Set<string>>;

/** What a poll remembers between runs for a stream of changes. */
export interface StreamCursor {
	/** The watermark W, epoch ms (a service timestamp). */
	since: number;
	seen: Seen;
}

export interface HandledChange {
	clientId: string;
	eventTime: number;
}

/**
 * A short, fixed-width key for a client id: 48 bits of its SHA-256, 8 base64url characters. Keys
 * are compared only within one event time (or review window), so collisions are negligible.
 */
export const CLIENT_KEY_LENGTH = 8;
export function clientKey(clientId: string): string {
	return createHash('sha256').update(clientId).digest('base64url').slice(0, CLIENT_KEY_LENGTH);
}

/** Client keys grouped by a label, as static data: `{ label: the group's keys, sorted and concatenated }`. */
export function encodeKeyGroups(groups: Iterable<[string, Iterable<string>]>): Record<string, string> {
	const encoded: Record<string, string> = {};
	for (const [label, keys] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
		encoded[label] = [...keys].sort().join('');
	}
	return encoded;
}

/** Reads what {@link encodeKeyGroups} wrote, each label checked by `isLabel`; undefined when it is not that shape. */
export function decodeKeyGroups(encoded: unknown, isLabel: (label: string) => boolean): Map<string, string[]> | undefined {
	if (typeof encoded !== 'object' || encoded === null || Array.isArray(encoded)) return undefined;
	const groups = new Map<string, string[]>();
	for (const [label, keys] of Object.entries(encoded)) {
		if (!isLabel(label) || typeof keys !== 'string' || keys.length % CLIENT_KEY_LENGTH !== 0) return undefined;
		const group: string[] = [];
		for (let at = 0; at < keys.length; at += CLIENT_KEY_LENGTH) group.push(keys.slice(at, at + CLIENT_KEY_LENGTH));
		groups.set(label, group);
	}
	return groups;
}

const inSeen = (seen: Seen, key: string, eventTime: number) => seen.get(eventTime)?.has(key) === true;

/** A change is new when it is at or after the watermark and in none of the seen sets. */
export function isNewChange(cursor: StreamCursor, clientId: string, eventTime: number, alsoSeen: Seen[] = []): boolean {
	if (eventTime < cursor.since) return false;
	const key = clientKey(clientId);
	return [cursor.seen, ...alsoSeen].every((seen) => !inSeen(seen, key, eventTime));
}

export function rememberIn(seen: Seen, { clientId, eventTime }: HandledChange): void {
	const keys = seen.get(eventTime) ?? new Set<string>();
	keys.add(clientKey(clientId));
	seen.set(eventTime, keys);
}

/** The entries of `sets` kept by `keep`, in one seen set. */
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

/** The cursor after a complete listing: the next watermark, and what was handled at or after it. */
export function completeCursor(
	cursor: StreamCursor,
	firstEvaluation: number,
	handled: Array<Seen | Iterable<HandledChange>>,
): StreamCursor {
	const since = watermarkAfter(cursor.since, firstEvaluation);
	return { since, seen: mergeSeen([cursor.seen, ...handled], (eventTime) => eventTime >= since) };
}

/** The lowest event time a sweep must remember what it handled at. */
export function sweepFloor(since: number, firstEvaluation: number): number {
	return watermarkAfter(since, firstEvaluation);
}

/** What a sweep that stopped part-way keeps: entries at or after its floor, and those of the page it stopped in. */
export function sweepSeenAfterStop(
	handled: Array<Seen | Iterable<HandledChange>>,
	floor: number,
	unfinishedPage: ReadonlySet<string>,
): Seen {
	return mergeSeen(handled, (eventTime, key) => eventTime >= floor || unfinishedPage.has(key));
}

/** Whether a client re-listed while replaying a sweep whose cursor was refused was handled already. */
export function isReplayedChange(eventTime: number, floor: number): boolean {
	return eventTime < floor;
}

/** The seen set as static data: event times as base-36 offsets from the watermark (about 8 bytes a client). */
export function encodeSeen(cursor: StreamCursor): Record<string, string> {
	return encodeKeyGroups([...cursor.seen].map(([time, keys]) => [(time - cursor.since).toString(36), keys]));
}

/** Reads what {@link encodeSeen} wrote; undefined when it is not that shape. */
export function decodeSeen(encoded: unknown, since: number): Seen | undefined {
	const groups = decodeKeyGroups(encoded, (offset) => /^[0-9a-z]+$/.test(offset));
	if (!groups) return undefined;
	return new Map([...groups].map(([offset, keys]) => [since + parseInt(offset, 36), new Set(keys)]));
}
