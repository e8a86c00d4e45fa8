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
 * Two pieces of evidence bound that time from below: the `lastModifiedAt` of what the poll listed
 * (its sightings), and the `Date` header of the answer to page 1 (RFC 9110: the time the origin
 * server generated the answer). The larger one wins. With `Date`, the watermark follows the
 * service's time even when nothing changes, so a poll after a burst of changes no longer lists
 * the burst again once the burst is older than the commit lag.
 *
 * A listing may take several polls (a sweep: see clients.ts) when n8n's poll budget is too short
 * for it. The rules below hold for the whole sweep, measured from its first page.
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

/** The resolution of an HTTP `Date` (whole seconds). */
export const DATE_RESOLUTION_MS = 1_000;

/** RFC 9110's preferred format (IMF-fixdate), the one origin servers generate. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A lower bound on when the service evaluated a request, from its answer's `Date` header and the
 * request's round trip (host-monotonic ms): the service generated `Date` within the round trip,
 * as it evaluated the request, so the evaluation came no earlier than `Date` less the round trip,
 * less the header's one-second resolution. Undefined when there is no `Date` in IMF-fixdate form:
 * the caller then relies on sightings alone.
 */
export function serviceTimeFromDate(date: unknown, roundTripMs: number): number | undefined {
	if (typeof date !== 'string' || !IMF_FIXDATE.test(date)) return undefined;
	const time = Date.parse(date);
	return Number.isNaN(time) ? undefined : time - Math.ceil(roundTripMs) - DATE_RESOLUTION_MS;
}

/**
 * A lower bound on when the service evaluated a listing's first page (e_1), from sightings.
 *
 * A client listed on page j was committed before the service evaluated page j (time e_j), and
 * e_j - e_1 <= the host time from sending request 1 to receiving response j (its lateness).
 * So e_1 >= modifiedAt - lateness for every sighting: the largest of these is a lower bound on
 * e_1. -Infinity without sightings.
 */
export function firstEvaluationBound(sightings: Iterable<Sighting>): number {
	let bound = -Infinity;
	for (const { modifiedAt, lateness } of sightings) bound = Math.max(bound, modifiedAt - Math.ceil(lateness));
	return bound;
}

/**
 * The watermark after a complete listing whose first page the service evaluated no earlier than
 * `firstEvaluation`. Every change committed before that evaluation is in the listing, so
 * everything changed before the bound, less the commit lag, has been seen; anything the listing
 * missed is at or after it. Never moves backwards; with no bound, it stays.
 */
export function watermarkAfter(watermark: number, firstEvaluation: number): number {
	return Math.max(watermark, firstEvaluation - COMMIT_LAG_MS);
}

/**
 * The watermark after a complete poll, from its sightings and, when the service sent a usable
 * `Date`, the service time it gives for page 1 ({@link serviceTimeFromDate}).
 */
export function nextWatermark(watermark: number, sightings: Iterable<Sighting>, serviceTime = -Infinity): number {
	return watermarkAfter(watermark, Math.max(firstEvaluationBound(sightings), serviceTime));
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

const inSeen = (seen: Seen, key: string, eventTime: number) => seen.get(eventTime)?.has(key) === true;

/**
 * A change is emitted when it is at or after the watermark and not handled before (in the
 * cursor's seen set, or in `alsoSeen`: what the sweep in progress handled).
 */
export function isNewChange(cursor: StreamCursor, clientId: string, eventTime: number, alsoSeen: Seen[] = []): boolean {
	if (eventTime < cursor.since) return false;
	const key = clientKey(clientId);
	return [cursor.seen, ...alsoSeen].every((seen) => !inSeen(seen, key, eventTime));
}

/** Adds a handled change to a seen set. */
export function rememberIn(seen: Seen, { clientId, eventTime }: HandledChange): void {
	const keys = seen.get(eventTime) ?? new Set<string>();
	keys.add(clientKey(clientId));
	seen.set(eventTime, keys);
}

/** The entries of `sets` kept by `keep`, in one seen set. */
export function mergeSeen(
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

/**
 * The cursor after a complete listing (the last poll of a sweep) whose first page the service
 * evaluated no earlier than `firstEvaluation`: the next watermark, and the changes handled so far
 * that are at or after it (older ones can no longer be listed: they are below the filter).
 */
export function completeCursor(
	cursor: StreamCursor,
	firstEvaluation: number,
	handled: Array<Seen | Iterable<HandledChange>>,
): StreamCursor {
	const since = watermarkAfter(cursor.since, firstEvaluation);
	return { since, seen: mergeSeen([cursor.seen, ...handled], (eventTime) => eventTime >= since) };
}

/** The cursor after a complete poll (a listing in one poll); see {@link completeCursor}. */
export function advanceCursor(
	cursor: StreamCursor,
	sightings: Iterable<Sighting>,
	handled: Iterable<HandledChange>,
	serviceTime = -Infinity,
): StreamCursor {
	return completeCursor(cursor, Math.max(firstEvaluationBound(sightings), serviceTime), [handled]);
}

/*
 * A sweep that stops part-way (n8n's poll budget) keeps the page cursor where it stopped, and
 * the next poll resumes there, with the same watermark: the cursor is bound to its filter. The
 * list keeps each client at its place (creation order), so a sweep lists each client once, and
 * what it handled need not be remembered against itself. It must be remembered against the
 * next sweep, which starts at the next watermark, at least the sweep's first evaluation bound
 * less the commit lag: the sweep's floor. So a sweep keeps:
 * - the seen set it started with, whole, until it completes (clients it has not reached yet
 *   are listed with the old watermark);
 * - what it handled at or after its floor (a change committed after the sweep began carries a
 *   time at or after the floor: see COMMIT_LAG_MS);
 * - what it handled on a page it stopped in the middle of (emitting with Fetch Full Client
 *   takes a request per client), since the next poll lists that page again.
 * Its saved state therefore grows with the changes made while it runs, not with the backlog.
 */

/** The lowest event time a sweep must remember what it handled at: see above. */
export function sweepFloor(since: number, firstEvaluation: number): number {
	return watermarkAfter(since, firstEvaluation);
}

/**
 * What a sweep that stopped part-way keeps of what it handled: entries at or after its floor,
 * and those of the clients on the page it stopped in (`unfinishedPage`, client keys).
 */
export function sweepSeenAfterStop(
	handled: Array<Seen | Iterable<HandledChange>>,
	floor: number,
	unfinishedPage: ReadonlySet<string>,
): Seen {
	return mergeSeen(handled, (eventTime, key) => eventTime >= floor || unfinishedPage.has(key));
}

/*
 * A service may refuse a saved page cursor (expired: HTTP 400). The sweep then lists again from
 * its first page, with the same watermark, and replays what it had passed, up to and including
 * the last client of its last complete page. A replayed change below the floor was handled
 * already: it was committed before the sweep's first evaluation (its time plus the commit lag is
 * below that evaluation), so the sweep listed that client in that state or a newer one, on a
 * page it completed. One at or after the floor is decided by the seen sets, which keep it.
 */

/** Whether a client re-listed while replaying a refused sweep was already handled. */
export function isReplayedChange(eventTime: number, floor: number): boolean {
	return eventTime < floor;
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
