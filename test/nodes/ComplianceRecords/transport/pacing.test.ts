import type { LimitSettings } from 'compliance-records-sandbox';
import type { IDataObject } from 'n8n-workflow';

import { runInRounds, runNode } from '../../../helpers';
import { createEachClient, newClients } from '../../../helpers/bulkCreate';
import { useControlledSandbox, withLimitsChangedAfter } from '../../../helpers/sandbox';

/* The execution's requests in flight and its pace, in n8n's engine against the sandbox playing
 * the service's limits. */

const { sandbox, credentials, posts, created } = useControlledSandbox({ clients: 1_000 });

describe('A bulk Create behind a rate limit', () => {
	it('creates each client exactly once: the refused requests are sent again, the whole execution waiting', async () => {
		sandbox().setLimits({ rateLimit: { requests: 40, burst: 10 } });
		const input = newClients(120);

		const run = await runNode({ credentials: credentials(), parameters: createEachClient, input });

		expect(run.error).toBeUndefined();
		expect(
			run.json.map((client) => client.entity && (client.entity as IDataObject).lastName),
		).toEqual(input.map((item) => item.lastName));
		expect(created()).toEqual(new Map(input.map((item) => [item.lastName as string, 1])));
		const refused = posts().filter((post) => post.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		// After a refusal, no request is sent until the wait it asked: every item waits, not only the
		// one refused (past the requests already on their way when it was answered).
		const answeredAt = refused[0].answeredAt as number;
		const during = sandbox()
			.requests()
			.filter(
				(request) => request.receivedAt > answeredAt + 250 && request.receivedAt < answeredAt + 950,
			);
		expect(during).toEqual([]);
	});

	it('keeps at most 32 requests in flight, all of them in use while the service is slow', async () => {
		sandbox().setLimits({ latencyMs: 100 });
		const input = newClients(5 * 32);

		const run = await runNode({ credentials: credentials(), parameters: createEachClient, input });

		expect(run.error).toBeUndefined();
		expect(created().size).toBe(input.length);
		expect(sandbox().traffic().maxInFlight).toBe(32);
	});

	it("keeps n8n's Batching: items per batch, and the interval between batches", async () => {
		sandbox().setLimits({ latencyMs: 50 });
		const input = newClients(6);

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				...createEachClient,
				requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 400 } } },
			},
			input,
		});

		expect(run.error).toBeUndefined();
		// Two at a time, each batch started after n8n's interval from the one before.
		const times = posts().map((post) => post.receivedAt);
		expect(times[2] - times[1]).toBeGreaterThanOrEqual(300);
		expect(times[4] - times[3]).toBeGreaterThanOrEqual(300);
		expect(sandbox().traffic().maxInFlight).toBeLessThanOrEqual(2);
	});
});

describe('The pace it learns from the service', () => {
	/** What the service answered, in the order it received the requests. */
	const statuses = () =>
		sandbox()
			.requests()
			.map((request) => request.status);

	/** When the service answered 429: the answers to requests on their way together, half a second or less apart, count once. */
	const refusals = () =>
		posts()
			.filter((post) => post.status === 429)
			.map((post) => post.answeredAt as number)
			.filter((at, index, all) => index === 0 || at - all[index - 1] > 500);

	it('starts with 8 requests in flight, and one more for each the service accepts', async () => {
		sandbox().setLimits({ latencyMs: 300 });

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(12),
		});

		expect(run.error).toBeUndefined();
		const [first, ...others] = posts();
		const beforeAnswer = others.filter((post) => post.receivedAt < (first.answeredAt as number));
		expect(beforeAnswer).toHaveLength(7);
	});

	it("keeps a round trip's worth in flight where the service is close by: a limit that runs out refuses few at once", async () => {
		await createdEachOnce({ rateLimit: { requests: 40, burst: 40 } }, 120);

		const [first] = refusals();
		const refusedTogether = posts().filter(
			(post) => post.status === 429 && (post.answeredAt as number) < first + 500,
		);
		// Answered within 10 to 12 ms here, 8 in flight, and a few more start before the first 429 is read: 9 to 15
		// refused together in four runs (with 32 in flight: 31).
		expect(refusedTogether.length).toBeGreaterThan(0);
		expect(refusedTogether.length).toBeLessThanOrEqual(20);
	});

	it('behind a window, keeps to the count its refusals showed: refused once or twice, then never', async () => {
		sandbox().setLimits({ rateLimit: { requests: 20, shape: 'sliding-window' } });

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(120),
		});

		expect(run.error).toBeUndefined();
		expect(created().size).toBe(120);
		// The first refusal shows the window where the starts of the requests on their way spanned two
		// requests' time at its pace; else a second does.
		expect(refusals().length).toBeGreaterThanOrEqual(1);
		expect(refusals().length).toBeLessThanOrEqual(2);
	});

	/** Creates `count` clients behind `limits`, and checks each was created once. */
	async function createdEachOnce(limits: LimitSettings, count: number) {
		sandbox().setLimits(limits);
		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(count),
		});
		expect(run.error).toBeUndefined();
		expect([...created().values()]).toEqual(Array(count).fill(1));
	}

	/** The creates the service received from `from` for `ms`. */
	const receivedWithin = (from: number, ms: number) =>
		posts().filter((post) => post.receivedAt >= from && post.receivedAt < from + ms);

	it('behind a token bucket with a small burst, a faster pace refused falls back to the rate the bucket refilled at: refused twice, then never', async () => {
		await createdEachOnce({ rateLimit: { requests: 30, burst: 8 } }, 200);

		const [, second] = refusals();
		expect(refusals()).toHaveLength(2);
		// Neither a pace the burst carried nor a quarter of the rate: the bucket allows 60 in the two seconds after the wait.
		const accepted = receivedWithin(second + 1_000, 2_000).filter((post) => post.status === 201);
		expect(accepted.length).toBeGreaterThanOrEqual(51);
	});

	it('behind a token bucket with a large burst and a slow refill, falls to the refill rate at the next refusal', async () => {
		await createdEachOnce({ latencyMs: 50, rateLimit: { requests: 20, burst: 60 } }, 200);

		// The 60 taken at once before the first refusal read as a fast rate (51 a second); the next refusal
		// tells the refill rate, and only a faster pace tried after seconds at it is refused again.
		const [, second] = refusals();
		expect(refusals().length).toBeLessThanOrEqual(3);
		const afterWait = receivedWithin(second + 1_000, 2_000);
		expect(afterWait.length).toBeGreaterThanOrEqual(34);
		expect(afterWait.filter((post) => post.status === 429)).toEqual([]);
	});

	it('behind a window that tightens mid-run (a limit shared with another client), falls to the rate it allows now', async () => {
		// After 100 creates the service allows 10 a second: a bucket, found at a later refusal.
		await withLimitsChangedAfter(sandbox(), 100, { rateLimit: { requests: 10, burst: 10 } }, () =>
			createdEachOnce(
				{ latencyMs: 100, rateLimit: { requests: 40, shape: 'sliding-window' } },
				170,
			),
		);

		// Read with a burst of one, each refusal lowered the pace by a fifth only: 5 refusals after the change.
		const changedAt = posts()[99].receivedAt;
		const refusedAfter = refusals().filter((at) => at > changedAt);
		expect(refusedAfter.length).toBeGreaterThanOrEqual(1);
		expect(refusedAfter.length).toBeLessThanOrEqual(3);
	});

	it('behind a window, tells it at the first refusal where none on their way was accepted though more than one was due: refused once', async () => {
		await createdEachOnce(
			{ latencyMs: 30, rateLimit: { requests: 40, shape: 'sliding-window' } },
			120,
		);

		// 30 ms away their starts spanned 1.6 to 1.8 requests' time at the rate the first stretch showed, where a
		// bucket refills one at least; waiting for two due, the window was told at a second refusal.
		expect(refusals()).toHaveLength(1);
	});

	/** Creates `count` clients behind `limits`, each once; returns the POSTs the service received after the first refusal's wait. */
	async function createdAfterFirstWait(limits: LimitSettings, count: number) {
		await createdEachOnce(limits, count);
		const firstRefused = posts().find((post) => post.status === 429);
		expect(firstRefused).toBeDefined();
		// The service asks a whole second at least: whatever arrives half a second on was sent after the wait.
		return posts().filter((post) => post.receivedAt > (firstRefused?.answeredAt as number) + 500);
	}

	it('behind a window the first refusal showed, sends its count at once when the window frees', async () => {
		const afterWait = await createdAfterFirstWait(
			{ latencyMs: 100, rateLimit: { requests: 40, shape: 'sliding-window' } },
			100,
		);

		const windowAfterWait = afterWait.slice(0, 40);
		expect(windowAfterWait).toHaveLength(40);
		expect(windowAfterWait.filter((post) => post.status === 429)).toEqual([]);
		// Paced evenly, the window's 40 would take a second.
		const spanMs = (windowAfterWait.at(-1)?.receivedAt as number) - windowAfterWait[0].receivedAt;
		expect(spanMs).toBeLessThan(500);
	});

	it('behind a window a later refusal showed (at no round trip the first showed none), sends its count at once after that wait', async () => {
		await createdEachOnce({ rateLimit: { requests: 40, shape: 'sliding-window' } }, 160);

		expect(refusals().length).toBeLessThanOrEqual(2);
		const lastRefused = refusals().at(-1) as number;
		const windowAfterWait = posts()
			.filter((post) => post.receivedAt > lastRefused + 500)
			.slice(0, 40);
		expect(windowAfterWait.filter((post) => post.status === 201)).toHaveLength(40);
		// Paced evenly, the window's 40 would take a second.
		const spanMs = (windowAfterWait.at(-1)?.receivedAt as number) - windowAfterWait[0].receivedAt;
		expect(spanMs).toBeLessThan(500);
	});

	it('behind a window, holds each place from its answer: requests reaching the service apart and out of order are not refused again', async () => {
		const afterWait = await createdAfterFirstWait(
			{
				latencyMs: 100,
				latencySpreadMs: 150,
				rateLimit: { requests: 40, shape: 'sliding-window' },
			},
			300,
		);

		expect(afterWait.length).toBeGreaterThan(200);
		expect(afterWait.filter((post) => post.status === 429)).toEqual([]);
	});

	it.each(['ratelimit', 'x-ratelimit'] as const)(
		'reads the limit from %s headers where the service sends them',
		async (headers) => {
			sandbox().setLimits({ rateLimit: { requests: 20, shape: 'sliding-window', headers } });

			const run = await runNode({
				credentials: credentials(),
				parameters: createEachClient,
				input: newClients(50),
			});

			expect(run.error).toBeUndefined();
			expect(created().size).toBe(50);
			expect(statuses().filter((status) => status === 429)).toEqual([]);
		},
	);

	it('sends at once what the headers say is left, then at the pace they tell', async () => {
		sandbox().setLimits({ rateLimit: { requests: 10, burst: 30, headers: 'ratelimit' } });

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(40),
		});

		expect(run.error).toBeUndefined();
		expect(created().size).toBe(40);
		expect(statuses().filter((status) => status === 429)).toEqual([]);
		// At the pace alone (10 a second), the first second would have held about 10.
		const [first] = posts();
		const inFirstSecond = posts().filter((post) => post.receivedAt < first.receivedAt + 1_000);
		expect(inFirstSecond.length).toBeGreaterThanOrEqual(25);
	});

	it("after the node's own silence between runs in one execution (Loop Over Items), sends at the service's rate, not slower", async () => {
		sandbox().setLimits({ rateLimit: { requests: 10, burst: 10 } });
		const [one, many] = [newClients(1), newClients(60)];

		const runs = await runInRounds({
			credentials: credentials(),
			parameters: createEachClient,
			batches: [one, many],
			pauseMs: 3_000,
		});

		expect(runs.map((run) => [run.error, run.json.length])).toEqual([
			[undefined, 1],
			[undefined, 60],
		]);
		expect(created().size).toBe(61);
		// In the two seconds after the second run's first refusal's wait, the service's rate allowed 20.
		const [first] = posts().filter((post) => post.status === 429);
		const from = (first.answeredAt as number) + 1_000;
		const accepted = posts().filter(
			(post) => post.status === 201 && post.receivedAt >= from && post.receivedAt < from + 2_000,
		);
		expect(accepted.length).toBeGreaterThanOrEqual(14);
	});
});
