/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import type { LimitSettings, Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import { apiClient, controlClient, newIndividualClient } from './helpers';

describe("a real service's limits", () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let control: ReturnType<typeof controlClient>;

	beforeEach(async () => {
		sandbox = await startSandbox({ clients: 5, controls: true });
		api = apiClient(sandbox);
		control = controlClient(sandbox);
	});
	afterEach(() => sandbox.close());

	it('none by default: every request is handled at once', async () => {
		const answers = await Promise.all(Array.from({ length: 30 }, () => api.get('/firm')));

		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(sandbox.traffic()).toMatchObject({ requests: 30, refused: { 429: 0, 502: 0, 503: 0 } });
	});

	it('a rate limit with a burst: the burst at once, then 429 with Retry-After in seconds, changing nothing', async () => {
		sandbox.setLimits({ rateLimit: { requests: 2, burst: 3 } });

		const created = [];
		for (let i = 0; i < 5; i++) created.push(await api.post('/clients', newIndividualClient()));

		expect(created.map((answer) => answer.status)).toEqual([201, 201, 201, 429, 429]);
		expect(created[3].headers.get('retry-after')).toBe('1');
		expect(created[3].body.message).toMatch(/^Rate limit of 2 requests per second exceeded/);
		expect(sandbox.requests().map((request) => [request.status, request.errorMessage])).toEqual([
			[201, undefined],
			[201, undefined],
			[201, undefined],
			[429, created[3].body.message],
			[429, created[4].body.message],
		]);
		// Refused requests created nothing.
		expect(sandbox.changes().filter((change) => change.cause === 'created')).toHaveLength(3);
		expect(sandbox.traffic().refused).toEqual({ 429: 2, 502: 0, 503: 0 });

		await sleep(600); // half a second refills one request (two a second)
		expect((await api.get('/firm')).status).toBe(200);
		expect((await api.get('/firm')).status).toBe(429);
	});

	it('a rate limit over minutes: Retry-After says how long until the next request is accepted', async () => {
		sandbox.setLimits({ rateLimit: { requests: 10, perSeconds: 60, burst: 1 } });

		expect((await api.get('/firm')).status).toBe(200);
		const refused = await api.get('/firm');

		expect(refused.status).toBe(429);
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(5);
		expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(6);
	});

	it('sustains the rate it was given', async () => {
		sandbox.setLimits({ rateLimit: { requests: 20, burst: 1 } });
		const started = performance.now();
		let [sent, accepted] = [0, 0];
		while (performance.now() - started < 1_000) {
			sent++;
			if ((await api.get('/firm')).status === 200) accepted++;
		}
		// Against the time it took and what was sent, so that a busy machine's slow client is not a slow limit.
		const allowed = 20 * ((performance.now() - started) / 1_000);
		expect(accepted).toBeLessThanOrEqual(Math.ceil(allowed) + 1);
		expect(accepted).toBeGreaterThanOrEqual(Math.floor(0.8 * Math.min(sent, allowed)));
	});

	type Answer = Awaited<ReturnType<ApiClient['get']>>;
	/** `count` requests to the API, one after the other: their answers. */
	async function oneByOne(count: number): Promise<Answer[]> {
		const answers: Answer[] = [];
		for (let i = 0; i < count; i++) answers.push(await api.get('/firm'));
		return answers;
	}
	const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

	it("a token bucket's burst may be a fraction of a request: 2.5 at one a second", async () => {
		// One a second leaves half a second of slack either side on a busy machine.
		sandbox.setLimits({ rateLimit: { requests: 10, perSeconds: 10, burst: 2.5 } });

		expect(statuses(await oneByOne(4))).toEqual([200, 200, 429, 429]);
		await sleep(1_000); // half a request was left; a second refills one more
		expect(statuses(await oneByOne(2))).toEqual([200, 429]);
	});

	it('a sliding window: each accepted request holds its place for a window', async () => {
		sandbox.setLimits({ rateLimit: { requests: 3, shape: 'sliding-window' } });

		const early = await oneByOne(2);
		const earlyDone = performance.now();
		await sleep(500);
		const late = await oneByOne(2);
		expect(statuses([...early, ...late])).toEqual([200, 200, 200, 429]);
		expect(late[1].headers.get('retry-after')).toBe('1');

		// The first two left the window by earlyDone + 1 s; the third holds its place until 1.5 s.
		await sleep(earlyDone + 1_200 - performance.now());
		expect(statuses(await oneByOne(3))).toEqual([200, 200, 429]);
	});

	it('a fixed window: a count per window, all of it back when the next window starts', async () => {
		sandbox.setLimits({ rateLimit: { requests: 3, perSeconds: 2, shape: 'fixed-window' } });
		const set = performance.now();

		await api.get('/firm');
		await sleep(1_000);
		const later = await oneByOne(3);
		expect(statuses(later)).toEqual([200, 200, 429]);
		expect(later[2].headers.get('retry-after')).toBe('1'); // the rest of the window, in whole seconds

		await sleep(set + 2_050 - performance.now());
		expect(statuses(await oneByOne(4))).toEqual([200, 200, 200, 429]);
	});

	it.each([
		[
			'ratelimit',
			['ratelimit-policy', 'ratelimit'],
			['"sandbox";q=3;w=1', '"sandbox";r=2;t=1'],
			['"sandbox";q=3;w=1', '"sandbox";r=0;t=1'],
		],
		[
			'x-ratelimit',
			['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
			['3', '2', '1'],
			['3', '0', '1'],
		],
	] as const)(
		'tells the limit in %s headers on every answer, refusals included',
		async (headers, names, first, refused) => {
			sandbox.setLimits({ rateLimit: { requests: 3, shape: 'sliding-window', headers } });

			const answers = await oneByOne(4);

			const said = (answer: Answer) => names.map((name) => answer.headers.get(name));
			expect(statuses(answers)).toEqual([200, 200, 200, 429]);
			expect(said(answers[0])).toEqual(first);
			expect(said(answers[3])).toEqual(refused);
		},
	);

	it('tells nothing in headers unless asked', async () => {
		sandbox.setLimits({ rateLimit: { requests: 3 } });
		const [answer] = await oneByOne(1);
		expect([...answer.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([]);
	});

	it('latency: every answer waits, and the requests in flight meanwhile are counted', async () => {
		sandbox.setLimits({ latencyMs: 200 });
		const started = performance.now();

		const answers = await Promise.all(
			Array.from({ length: 12 }, () => api.get('/clients?limit=1')),
		);

		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(performance.now() - started).toBeGreaterThanOrEqual(195);
		expect(performance.now() - started).toBeLessThan(2_000);
		expect(sandbox.traffic().maxInFlight).toBe(12);
	});

	it('latency spread: each answer waits from the latency to the latency and the spread, drawn apart', async () => {
		sandbox.setLimits({ latencyMs: 50, latencySpreadMs: 200 });
		const started = performance.now();

		const answeredAfter = await Promise.all(
			Array.from({ length: 20 }, async () => {
				await api.get('/clients?limit=1');
				return performance.now() - started;
			}),
		);

		expect(Math.min(...answeredAfter)).toBeGreaterThanOrEqual(45);
		expect(Math.max(...answeredAfter)).toBeLessThan(1_000);
		// Twenty draws from 0 to 200 ms: sent together, they are answered well apart.
		expect(Math.max(...answeredAfter) - Math.min(...answeredAfter)).toBeGreaterThan(80);
	});

	it('502 and 503 at a given rate, in turn, changing nothing', async () => {
		sandbox.setLimits({ unavailableRate: 0.5 });

		const answers = [];
		for (let i = 0; i < 200; i++)
			answers.push((await api.post('/clients', newIndividualClient())).status);

		const { refused } = sandbox.traffic();
		expect(refused[502] + refused[503]).toBe(answers.filter((status) => status !== 201).length);
		expect(refused[502] + refused[503]).toBeGreaterThan(70);
		expect(refused[502] + refused[503]).toBeLessThan(130);
		expect(Math.abs(refused[502] - refused[503])).toBeLessThanOrEqual(1);
		expect(sandbox.changes().filter((change) => change.cause === 'created')).toHaveLength(
			answers.filter((status) => status === 201).length,
		);
	});

	it('over HTTP: POST /limits, GET and DELETE /traffic; a limit off again with null', async () => {
		expect(
			(await control('POST', '/limits', { rateLimit: { requests: 1, perSeconds: 60 } })).status,
		).toBe(204);
		await api.get('/firm');
		await api.get('/firm');

		expect((await control('GET', '/traffic')).body.data).toEqual({
			requests: 2,
			maxInFlight: 1,
			refused: { 429: 1, 502: 0, 503: 0 },
		});
		expect((await control('DELETE', '/traffic')).status).toBe(204);
		expect((await control('GET', '/traffic')).body.data).toEqual({
			requests: 0,
			maxInFlight: 0,
			refused: { 429: 0, 502: 0, 503: 0 },
		});

		await control('POST', '/limits', { rateLimit: null });
		expect((await api.get('/firm')).status).toBe(200);
	});

	it.each([
		[{ rateLimit: { requests: 0 } }, 'rateLimit.requests must be a number above 0'],
		[
			{ rateLimit: { requests: 5, burst: 0.5 } },
			'rateLimit.burst must be at least 1, and only for a token-bucket',
		],
		[
			{ rateLimit: { requests: 5, burst: 5, shape: 'sliding-window' } },
			'rateLimit.burst must be at least 1, and only for a token-bucket',
		],
		[
			{ rateLimit: { requests: 5, shape: 'leaky' } },
			'rateLimit.shape must be one of token-bucket, sliding-window, fixed-window',
		],
		[
			{ rateLimit: { requests: 2.5, shape: 'fixed-window' } },
			'rateLimit.requests must be a whole number for a window',
		],
		[
			{ rateLimit: { requests: 5, headers: 'retry-after' } },
			'rateLimit.headers must be one of ratelimit, x-ratelimit',
		],
		[{ latencyMs: -1 }, 'latencyMs must be a whole number, 0 or more'],
		[{ latencySpreadMs: 2.5 }, 'latencySpreadMs must be a whole number, 0 or more'],
		[{ unavailableRate: 2 }, 'unavailableRate must be from 0 to 1'],
	])('refuses %j', async (settings, message) => {
		expect(() => sandbox.setLimits(settings as LimitSettings)).toThrow(message);
		expect(await control('POST', '/limits', settings)).toMatchObject({
			status: 400,
			body: { message },
		});
	});

	it("faults for one API key's requests, and from the nth on", async () => {
		const other = sandbox.createApiKey({ name: 'Another test' });
		sandbox.injectFaults({ count: 1, status: 429, apiKey: other, after: 1, path: '/firm' });
		sandbox.injectFaults({ count: 1, status: 503, apiKey: other, after: 2, path: '/firm' });

		const mine = await api.get('/firm');
		const theirs = [];
		for (let i = 0; i < 4; i++) theirs.push((await apiClient(sandbox, other).get('/firm')).status);

		expect(mine.status).toBe(200);
		expect(theirs).toEqual([200, 429, 503, 200]);
	});

	it('a fault after handling: the client is created, then its answer is lost to the error', async () => {
		sandbox.injectFaults({ count: 1, status: 500, afterHandling: true, path: '/clients' });

		const answer = await api.post('/clients', newIndividualClient());

		expect(answer.status).toBe(500);
		expect(sandbox.changes().filter((change) => change.cause === 'created')).toHaveLength(1);
	});
});
