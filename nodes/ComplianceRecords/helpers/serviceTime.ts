// Why each rule holds: docs/trigger.md, "How a poll works".

/** How late a change may appear in the list after its `lastModifiedAt` (not documented). */
export const COMMIT_LAG_MS = 5_000;

export interface Sighting {
	modifiedAt: number;
	/** Host-monotonic ms from sending the listing's first request to receiving this client's page. */
	lateness: number;
}

const DATE_RESOLUTION_MS = 1_000;

/** RFC 9110's IMF-fixdate, the form origin servers generate. */
const IMF_FIXDATE =
	/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

function dateTime(date: unknown): number | undefined {
	if (typeof date !== 'string' || !IMF_FIXDATE.test(date)) return undefined;
	const time = Date.parse(date);
	return Number.isNaN(time) ? undefined : time;
}

/** A lower bound on when the service evaluated a request. */
export function serviceTimeFromDate(date: unknown, roundTripMs: number): number | undefined {
	const time = dateTime(date);
	return time === undefined ? undefined : time - Math.ceil(roundTripMs) - DATE_RESOLUTION_MS;
}

export function serviceTimeBefore(date: unknown, msBefore: number): number | undefined {
	const time = dateTime(date);
	return time === undefined ? undefined : time + DATE_RESOLUTION_MS - Math.floor(msBefore);
}

/** A lower bound on when the service evaluated a listing's first page, from what it listed. */
export function firstEvaluationBound(sightings: Iterable<Sighting>): number {
	let bound = -Infinity;
	for (const { modifiedAt, lateness } of sightings)
		bound = Math.max(bound, modifiedAt - Math.ceil(lateness));
	return bound;
}

export function watermarkAfter(watermark: number, firstEvaluation: number): number {
	return Math.max(watermark, firstEvaluation - COMMIT_LAG_MS);
}
