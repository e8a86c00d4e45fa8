import {
	advanceCursor,
	clientKey,
	COMMIT_LAG_MS,
	decodeSeen,
	encodeSeen,
	isNewChange,
	nextWatermark,
	type StreamCursor,
} from '../../../../nodes/ComplianceRecords/trigger/cursor';

const T = Date.parse('2026-11-21T10:00:00.000Z');

describe('nextWatermark', () => {
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

describe('the seen set', () => {
	const cursor: StreamCursor = { since: T, seen: new Map() };

	it('treats a change at the watermark as new (the filter is inclusive) and one before it as old', () => {
		expect(isNewChange(cursor, 'c1', T)).toBe(true);
		expect(isNewChange(cursor, 'c1', T - 1)).toBe(false);
	});

	it('remembers handled changes at or after the new watermark, and only those', () => {
		const next = advanceCursor(
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
		const first = advanceCursor(cursor, [{ modifiedAt: T + 6_000, lateness: 0 }], [
			{ clientId: 'a', eventTime: T + 6_000 },
		]);
		const second = advanceCursor(first, [{ modifiedAt: T + 6_500, lateness: 0 }], [
			{ clientId: 'b', eventTime: T + 6_500 },
		]);
		expect(isNewChange(second, 'a', T + 6_000)).toBe(false);
		const third = advanceCursor(second, [{ modifiedAt: T + 20_000, lateness: 0 }], []);
		expect(third.seen.size).toBe(0);
	});

	it('survives a round trip through static data (JSON), compactly', () => {
		const handled = Array.from({ length: 300 }, (_, i) => ({ clientId: `tie-${i}`, eventTime: T + 8_000 }));
		handled.push({ clientId: 'alone', eventTime: T + 7_000 });
		const next = advanceCursor(cursor, [{ modifiedAt: T + 8_000, lateness: 0 }], handled);
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
		const clients = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, modifiedAt: T - 100_000 }));
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
			cursor = advanceCursor(
				cursor,
				sightings,
				fresh.map((client) => ({ clientId: client.id, eventTime: client.modifiedAt })),
			);
			now += 60_000;
		}
		return { changes, emitted };
	}

	it.each(Array.from({ length: 25 }, (_, i) => i + 1))('seed %i: none lost, none repeated', (seed) => {
		const { changes, emitted } = run(seed);
		const pairs = emitted.map(({ id, at }) => `${id}@${at}`);
		expect(new Set(pairs).size).toBe(pairs.length);
		for (const { id, at, poll } of changes) {
			if (poll >= 28) continue; // the model stops before the next two polls
			const covering = emitted.find((e) => e.id === id && e.at >= at && e.poll <= poll + 1);
			expect(covering).toBeDefined();
		}
	});
});
