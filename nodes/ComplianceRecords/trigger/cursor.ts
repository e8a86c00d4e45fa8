import { createHash } from 'crypto';

/*
 * The watermark and boundary rules of the trigger, as pure functions.
 *
 * A poll lists every client whose `lastModifiedAt` is at or after the watermark W (the service's
 * `sinceModifiedAt` filter is inclusive), page by page, in creation order, not in modification
 * order. A client changed while the poll pages, at a position the poll has already passed, is
 * not in this poll, and its `lastModifiedAt` can be lower than the highest one the poll saw.
 * So the next watermark is not "the newest change seen" but a lower bound on the service's time
 * when the poll's first page was evaluated: every change before that bound was listed.
 *
 * Only service timestamps become watermarks. The host's clock is used for durations only
 * (monotonic, so an offset between the n8n host and the service cannot move a watermark).
 */

/**
 * How long a change may take to appear in the list after the `lastModifiedAt` it carries
 * (commit lag, several service instances stamping times). The spec does not say; five seconds
 * costs a few re-listed clients per poll and guards against a slow transaction.
 */
export const COMMIT_LAG_MS = 5_000;

/** One client as a poll listed it. */
export interface Sighting {
	/** Its `lastModifiedAt`, epoch ms: a service timestamp. */
	modifiedAt: number;
	/**
	 * Host-monotonic ms from sending the poll's first request to receiving the page that listed
	 * it; 0 for the first page, which the service evaluated at the poll's first evaluation.
	 */
	lateness: number;
}

/**
 * The watermark after a complete poll.
 *
 * A client listed on page j was committed before the service evaluated page j (time e_j), and
 * e_j - e_1 <= the host time from sending request 1 to receiving response j (its lateness).
 * So e_1 >= modifiedAt - lateness for every sighting: the largest of these is a lower bound on
 * e_1. Every change committed before e_1 is in the listing, so everything changed before that
 * bound, less the commit lag, has been seen; anything the poll missed is at or after it.
 * Never moves backwards; with no sighting, it stays.
 */
export function nextWatermark(watermark: number, sightings: Iterable<Sighting>): number {
	let firstEvaluation = -Infinity;
	for (const { modifiedAt, lateness } of sightings) {
		firstEvaluation = Math.max(firstEvaluation, modifiedAt - Math.ceil(lateness));
	}
	return Math.max(watermark, firstEvaluation - COMMIT_LAG_MS);
}

/**
 * Changes already handled (emitted, or recorded by the first poll) whose event time is at or
 * after the watermark: those are listed again by the next poll and must not be emitted twice.
 * Event time (epoch ms) -> keys of the clients handled at that time.
 */
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
 * A short, fixed-width key for a client id: 48 bits of its SHA-256, 8 base64url characters.
 * Keys are only compared within one event time (or, for review dates, among the clients inside
 * the review window), so a collision needs two clients with the same event time and the same
 * 48 bits: about n / 2.8e14 per lookup against n entries.
 */
export const CLIENT_KEY_LENGTH = 8;
export function clientKey(clientId: string): string {
	return createHash('sha256').update(clientId).digest('base64url').slice(0, CLIENT_KEY_LENGTH);
}

/** A change is emitted when it is at or after the watermark and not handled before. */
export function isNewChange(cursor: StreamCursor, clientId: string, eventTime: number): boolean {
	return eventTime >= cursor.since && !cursor.seen.get(eventTime)?.has(clientKey(clientId));
}

/**
 * The cursor after a complete poll: the next watermark, and the changes handled so far that are
 * at or after it (older ones can no longer be listed: they are below the filter).
 */
export function advanceCursor(
	cursor: StreamCursor,
	sightings: Iterable<Sighting>,
	handled: Iterable<HandledChange>,
): StreamCursor {
	const since = nextWatermark(cursor.since, sightings);
	const seen: Seen = new Map();
	const remember = (eventTime: number, key: string) => {
		if (eventTime < since) return;
		const keys = seen.get(eventTime) ?? new Set<string>();
		keys.add(key);
		seen.set(eventTime, keys);
	};
	for (const [eventTime, keys] of cursor.seen) for (const key of keys) remember(eventTime, key);
	for (const { clientId, eventTime } of handled) remember(eventTime, clientKey(clientId));
	return { since, seen };
}

/**
 * The seen set as static data: {offset of the event time from the watermark, in base 36: the
 * keys of that time, concatenated}. About 8 bytes per client for ties, 17 otherwise.
 */
export function encodeSeen(cursor: StreamCursor): Record<string, string> {
	const encoded: Record<string, string> = {};
	const times = [...cursor.seen.keys()].sort((a, b) => a - b);
	for (const time of times) {
		encoded[(time - cursor.since).toString(36)] = [...(cursor.seen.get(time) ?? [])].sort().join('');
	}
	return encoded;
}

/** Reads what {@link encodeSeen} wrote; undefined when it is not that shape. */
export function decodeSeen(encoded: unknown, since: number): Seen | undefined {
	if (typeof encoded !== 'object' || encoded === null || Array.isArray(encoded)) return undefined;
	const seen: Seen = new Map();
	for (const [offset, keys] of Object.entries(encoded)) {
		const time = since + parseInt(offset, 36);
		if (!/^[0-9a-z]+$/.test(offset) || typeof keys !== 'string') return undefined;
		if (keys.length % CLIENT_KEY_LENGTH !== 0) return undefined;
		const set = new Set<string>();
		for (let at = 0; at < keys.length; at += CLIENT_KEY_LENGTH) {
			set.add(keys.slice(at, at + CLIENT_KEY_LENGTH));
		}
		seen.set(time, set);
	}
	return seen;
}
