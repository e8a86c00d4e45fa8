import {
	COMMIT_LAG_MS,
	firstEvaluationBound,
	serviceTimeFromDate,
	type Sighting,
	watermarkAfter,
} from '../../../../nodes/ComplianceRecords/helpers/serviceTime';
import { clientKey } from '../../../../nodes/ComplianceRecords/trigger/clientKeys';
import {
	completeCursor,
	decodeSeen,
	encodeSeen,
	isNewChange,
	rememberIn,
	sweepSeenAfterStop,
	type HandledChange,
	type Seen,
	type StreamCursor,
} from '../../../../nodes/ComplianceRecords/trigger/watermark';

const T = Date.parse('2026-11-21T10:00:00.000Z');

/** The cursor after a listing complete in one poll, as the trigger composes it (clients.ts, changes.ts). */
const afterListing = (
	cursor: StreamCursor,
	sightings: Sighting[],
	handled: HandledChange[] = [],
	serviceTime = -Infinity,
) => completeCursor(cursor, Math.max(firstEvaluationBound(sightings), serviceTime), [handled]);

/** The watermark after such a listing from watermark `since`. */
const nextWatermark = (since: number, sightings: Sighting[], serviceTime?: number) =>
	afterListing({ since, seen: new Map() }, sightings, [], serviceTime).since;

describe('the watermark after a listing', () => {
	it('is the newest change on the first page less the commit lag', () => {
		const sightings = [
			{ modifiedAt: T, lateness: 0 },
			{ modifiedAt: T + 900, lateness: 0 },
		];
		expect(nextWatermark(T - 60_000, sightings)).toBe(T + 900 - COMMIT_LAG_MS);
	});

	it('lowers a later page by the time from the first request to that page', () => {
		// Page 2 arrived 1.5 s after page 1 was requested: the service evaluated page 1 no
		// earlier than 1.5 s before the change listed on page 2.
		const sightings = [
			{ modifiedAt: T, lateness: 0 },
			{ modifiedAt: T + 2_000, lateness: 1_499.2 },
		];
		expect(nextWatermark(T - 60_000, sightings)).toBe(T + 2_000 - 1_500 - COMMIT_LAG_MS);
	});

	it('never moves backwards, and stays when nothing was listed', () => {
		expect(nextWatermark(T, [{ modifiedAt: T + 1_000, lateness: 0 }])).toBe(T);
		expect(nextWatermark(T, [])).toBe(T);
	});
});

describe("the service's time from its Date header", () => {
	it('is the Date less the round trip and its one-second resolution', () => {
		expect(serviceTimeFromDate('Sat, 21 Nov 2026 10:00:07 GMT', 120.4)).toBe(
			Date.parse('2026-11-21T10:00:07Z') - 121 - 1000,
		);
	});

	it.each([
		undefined,
		'',
		'soon',
		'2026-11-21T10:00:07Z',
		'Saturday, 21-Nov-26 10:00:07 GMT',
		'Sat Nov 21 10:00:07 2026',
		42,
	])('is unknown for %p (the poll then relies on what it listed)', (date) => {
		expect(serviceTimeFromDate(date, 10)).toBeUndefined();
	});

	it('moves the watermark when it is later than what was listed, never backwards', () => {
		const listed = [{ modifiedAt: T, lateness: 0 }];
		expect(nextWatermark(T - 60_000, listed, T + 60_000)).toBe(T + 60_000 - COMMIT_LAG_MS);
		expect(nextWatermark(T - 60_000, listed, T - 30_000)).toBe(T - COMMIT_LAG_MS);
		expect(nextWatermark(T - 60_000, [], T + 1_000)).toBe(T + 1_000 - COMMIT_LAG_MS); // nothing listed: still moves
		expect(nextWatermark(T, [], T - 60_000)).toBe(T);
	});
});

describe('the seen set', () => {
	const cursor: StreamCursor = { since: T, seen: new Map() };

	it('treats a change at the watermark as new (the filter is inclusive) and one before it as old', () => {
		expect(isNewChange(cursor, 'c1', T)).toBe(true);
		expect(isNewChange(cursor, 'c1', T - 1)).toBe(false);
	});

	it('remembers handled changes at or after the new watermark, and only those', () => {
		const next = afterListing(
			cursor,
			[{ modifiedAt: T + 10_000, lateness: 0 }],
			[
				{ clientId: 'old', eventTime: T + 1_000 },
				{ clientId: 'tie-a', eventTime: T + 10_000 },
				{ clientId: 'tie-b', eventTime: T + 10_000 },
			],
		);
		expect(next.since).toBe(T + 10_000 - COMMIT_LAG_MS);
		expect(isNewChange(next, 'tie-a', T + 10_000)).toBe(false);
		expect(isNewChange(next, 'tie-b', T + 10_000)).toBe(false);
		expect(isNewChange(next, 'tie-c', T + 10_000)).toBe(true);
		expect(isNewChange(next, 'tie-a', T + 10_001)).toBe(true);
		expect(isNewChange(next, 'old', T + 1_000)).toBe(false); // below the watermark now
		expect([...next.seen.keys()]).toEqual([T + 10_000]);
	});

	it('carries earlier entries forward until the watermark passes them', () => {
		const first = afterListing(
			cursor,
			[{ modifiedAt: T + 6_000, lateness: 0 }],
			[{ clientId: 'a', eventTime: T + 6_000 }],
		);
		const second = afterListing(
			first,
			[{ modifiedAt: T + 6_500, lateness: 0 }],
			[{ clientId: 'b', eventTime: T + 6_500 }],
		);
		expect(isNewChange(second, 'a', T + 6_000)).toBe(false);
		const third = afterListing(second, [{ modifiedAt: T + 20_000, lateness: 0 }], []);
		expect(third.seen.size).toBe(0);
	});

	it('survives a round trip through static data (JSON), compactly', () => {
		const handled = Array.from({ length: 300 }, (_, i) => ({
			clientId: `tie-${i}`,
			eventTime: T + 8_000,
		}));
		handled.push({ clientId: 'alone', eventTime: T + 7_000 });
		const next = afterListing(cursor, [{ modifiedAt: T + 8_000, lateness: 0 }], handled);
		const json = JSON.stringify(encodeSeen(next));
		const decoded = decodeSeen(JSON.parse(json), next.since);
		expect(decoded).toEqual(next.seen);
		// 301 clients: 8 characters each, plus one key per distinct time.
		expect(json.length).toBeLessThan(301 * 8 + 40);
	});

	it('rejects static data it did not write', () => {
		expect(decodeSeen([], T)).toBeUndefined();
		expect(decodeSeen({ '1': 'abc' }, T)).toBeUndefined();
		expect(decodeSeen({ 'x-y': 'abcdefgh' }, T)).toBeUndefined();
		expect(decodeSeen({ '1': 42 }, T)).toBeUndefined();
	});

	it('keys clients by 8 stable characters', () => {
		expect(clientKey('cl_1')).toHaveLength(8);
		expect(clientKey('cl_1')).toBe(clientKey('cl_1'));
		const keys = new Set(Array.from({ length: 10_000 }, (_, i) => clientKey(`cl_${i}`)));
		expect(keys.size).toBe(10_000);
	});
});

describe('a listing that spans polls (a sweep)', () => {
	const cursor: StreamCursor = {
		since: T,
		seen: new Map([[T + 500, new Set([clientKey('old')])]]),
	};
	const change = (clientId: string, eventTime: number): HandledChange => ({ clientId, eventTime });

	it('keeps what it handled at or after its floor, and on the page it stopped in, until it completes', () => {
		const firstEvaluation = T + 60_000;
		const floor = watermarkAfter(cursor.since, firstEvaluation);
		expect(floor).toBe(T + 60_000 - COMMIT_LAG_MS);
		const handled = [
			change('backlog', T + 1_000),
			change('recent', floor),
			change('on-page', T + 2_000),
		];
		const kept = sweepSeenAfterStop([handled], floor, new Set([clientKey('on-page')]));
		expect([...kept.entries()].map(([time, keys]) => [time - T, [...keys]])).toEqual([
			[floor - T, [clientKey('recent')]],
			[2_000, [clientKey('on-page')]],
		]);
		// The seen set it started with is kept whole by the caller; the decision uses both.
		expect(isNewChange(cursor, 'old', T + 500, [kept])).toBe(false);
		expect(isNewChange(cursor, 'recent', floor, [kept])).toBe(false);
		expect(isNewChange(cursor, 'backlog', T + 1_000, [kept])).toBe(true); // never listed again by this sweep
	});

	it('completes at the watermark of its first evaluation, remembering what is at or after it', () => {
		const sweepSeen: Seen = new Map();
		rememberIn(sweepSeen, change('recent', T + 58_000));
		const done = completeCursor(cursor, T + 60_000, [
			sweepSeen,
			[change('later', T + 61_000), change('backlog', T + 1_000)],
		]);
		expect(done.since).toBe(T + 55_000);
		expect([...done.seen.keys()].sort()).toEqual([T + 58_000, T + 61_000]);
	});
});

/*
 * The rules against a model of the service: clients listed in creation order, pages evaluated
 * at increasing service times, changes (with ties) landing between pages at positions already
 * passed, and a host clock that runs at the service's rate from an arbitrary offset. Whatever
 * the interleaving, every change is emitted by one of the next two polls, and no client is
 * emitted twice with the same lastModifiedAt.
 */
describe('the rules against a model of paging while clients change', () => {
	function run(seed: number) {
		let random = seed;
		const next = () => {
			random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
			return random / 2 ** 31;
		};
		let now = T; // service time
		const hostOffset = (next() - 0.5) * 600_000; // host clock +-5 min: durations only
		const hostNow = () => now + hostOffset;
		const clients = Array.from({ length: 40 }, (_, i) => ({
			id: `c${i}`,
			modifiedAt: T - 100_000,
		}));
		const changes: Array<{ id: string; at: number; poll: number }> = [];
		const emitted: Array<{ id: string; at: number; poll: number }> = [];
		const change = (poll: number) => {
			const client = clients[Math.floor(next() * clients.length)];
			client.modifiedAt = now; // ties when the clock does not move
			changes.push({ id: client.id, at: now, poll });
		};

		let cursor: StreamCursor = { since: T - 50_000, seen: new Map() };
		for (let poll = 0; poll < 30; poll++) {
			for (let i = Math.floor(next() * 8); i > 0; i--) {
				if (next() < 0.7) now += Math.floor(next() * 3_000);
				change(poll);
			}
			const started = hostNow();
			const listed: Array<{ id: string; modifiedAt: number }> = [];
			const sightings = [];
			for (let position = 0; position < clients.length; position += 5) {
				if (position > 0) now += Math.floor(next() * 400); // the next request
				const lateness = position === 0 ? 0 : hostNow() - started;
				for (const client of clients.slice(position, position + 5)) {
					if (client.modifiedAt < cursor.since) continue;
					listed.push({ ...client });
					sightings.push({ modifiedAt: client.modifiedAt, lateness });
				}
				if (next() < 0.5) change(poll); // mid-poll, maybe at a passed position
			}
			const fresh = listed.filter((client) => isNewChange(cursor, client.id, client.modifiedAt));
			for (const client of fresh) emitted.push({ id: client.id, at: client.modifiedAt, poll });
			cursor = afterListing(
				cursor,
				sightings,
				fresh.map((client) => ({ clientId: client.id, eventTime: client.modifiedAt })),
			);
			now += 60_000;
		}
		return { changes, emitted };
	}

	it.each(Array.from({ length: 25 }, (_, i) => i + 1))(
		'seed %i: none lost, none repeated',
		(seed) => {
			const { changes, emitted } = run(seed);
			const pairs = emitted.map(({ id, at }) => `${id}@${at}`);
			expect(new Set(pairs).size).toBe(pairs.length);
			for (const { id, at, poll } of changes) {
				if (poll >= 28) continue; // the model stops before the next two polls
				const covering = emitted.find((e) => e.id === id && e.at >= at && e.poll <= poll + 1);
				expect(covering).toBeDefined();
			}
		},
	);
});

/*
 * The same, with listings that span polls: each poll lists one to three pages and stops (n8n's
 * budget), the next resumes at the saved position, and now and then the service refuses the
 * saved cursor (the listing starts again at its first page, replaying what it passed). The
 * first page's evaluation is also bounded by a `Date` (whole seconds) less the round trip.
 * Whatever the interleaving, every change is emitted (quiet polls at the end, without refused
 * cursors, drain the rest), no client is emitted twice with the same lastModifiedAt, and what a
 * sweep keeps is no more than the changes made since its floor.
 */
describe('the rules against a model of listings that span polls', () => {
	const httpDate = (time: number) => new Date(Math.floor(time / 1000) * 1000).toUTCString();

	function run(seed: number) {
		let random = seed;
		const next = () => {
			random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
			return random / 2 ** 31;
		};
		let now = T;
		const hostOffset = (next() - 0.5) * 600_000;
		const hostNow = () => now + hostOffset;
		const clients = Array.from({ length: 40 }, (_, i) => ({
			id: `c${i}`,
			modifiedAt: T - 100_000,
		}));
		const changes: Array<{ id: string; at: number }> = [];
		const emitted: Array<{ id: string; at: number }> = [];
		let sweepSeenBeyondBound = 0;
		const change = () => {
			const client = clients[Math.floor(next() * clients.length)];
			client.modifiedAt = now;
			changes.push({ id: client.id, at: now });
		};

		let cursor: StreamCursor = { since: T - 50_000, seen: new Map() };
		let sweep:
			| { next: number; firstEvaluation: number; last?: string; replayUntil?: string; seen: Seen }
			| undefined;
		for (let poll = 0; poll < 45; poll++) {
			const quiet = poll >= 30;
			if (!quiet) {
				for (let i = Math.floor(next() * 8); i > 0; i--) {
					if (next() < 0.7) now += Math.floor(next() * 3_000);
					change();
				}
			}
			const measuring = sweep === undefined;
			const current: {
				next: number;
				firstEvaluation: number;
				last?: string;
				replayUntil?: string;
				seen: Seen;
			} = sweep ?? {
				next: 0,
				firstEvaluation: -Infinity,
				seen: new Map(),
			};
			if (!quiet && !measuring && current.next > 0 && next() < 0.2) {
				current.replayUntil ??= current.last; // the saved cursor is refused
				current.next = 0;
			}
			const floor = () => watermarkAfter(cursor.since, current.firstEvaluation);
			const handled: HandledChange[] = [];
			const pollSeen: Seen = new Map();
			const started = hostNow();
			const pageLimit = 1 + Math.floor(next() * 3);
			let complete = false;
			for (let page = 0; ; page++) {
				now += 50 + Math.floor(next() * 400); // the request, evaluated now
				const position = current.next;
				const items = clients
					.slice(position, position + 5)
					.filter((client) => client.modifiedAt >= cursor.since);
				const rtt = Math.floor(next() * 300);
				if (measuring) {
					const lateness = page === 0 ? 0 : hostNow() - started;
					const pageOne =
						page === 0
							? (serviceTimeFromDate(httpDate(now + Math.floor(next() * rtt)), rtt) ?? -Infinity)
							: -Infinity;
					for (const item of items)
						current.firstEvaluation = Math.max(
							current.firstEvaluation,
							item.modifiedAt - Math.ceil(lateness),
						);
					current.firstEvaluation = Math.max(current.firstEvaluation, pageOne);
				}
				for (const item of items) {
					const replayed = current.replayUntil !== undefined;
					if (replayed && item.id === current.replayUntil) current.replayUntil = undefined;
					if (replayed && item.modifiedAt < floor()) continue; // handled before the cursor was refused
					if (!isNewChange(cursor, item.id, item.modifiedAt, [current.seen, pollSeen])) continue;
					emitted.push({ id: item.id, at: item.modifiedAt });
					handled.push({ clientId: item.id, eventTime: item.modifiedAt });
					rememberIn(pollSeen, handled[handled.length - 1]);
				}
				if (items.length > 0 && current.replayUntil === undefined)
					current.last = items[items.length - 1].id;
				current.next = position + 5;
				if (!quiet && next() < 0.5) change(); // while paging, maybe at a passed position
				if (current.next >= clients.length) {
					complete = true;
					break;
				}
				if (page + 1 >= pageLimit) break;
			}
			if (complete) {
				cursor = completeCursor(cursor, current.firstEvaluation, [current.seen, handled]);
				sweep = undefined;
			} else {
				sweep = {
					...current,
					seen: sweepSeenAfterStop([current.seen, handled], floor(), new Set()),
				};
				// It keeps no more than the changes made since its floor, whatever the backlog.
				const kept = [...sweep.seen.values()].reduce((sum, keys) => sum + keys.size, 0);
				sweepSeenBeyondBound += Math.max(
					0,
					kept - changes.filter(({ at }) => at >= floor()).length,
				);
			}
			now += 60_000;
		}
		return { changes, emitted, sweepSeenBeyondBound };
	}

	it.each(Array.from({ length: 25 }, (_, i) => i + 1))(
		'seed %i: none lost, none repeated',
		(seed) => {
			const { changes, emitted, sweepSeenBeyondBound } = run(seed);
			const pairs = emitted.map(({ id, at }) => `${id}@${at}`);
			expect(new Set(pairs).size).toBe(pairs.length);
			for (const { id, at } of changes)
				expect(emitted.some((e) => e.id === id && e.at >= at)).toBe(true);
			expect(sweepSeenBeyondBound).toBe(0);
		},
	);
});
