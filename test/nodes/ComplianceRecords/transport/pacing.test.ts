import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runInRounds, runNode } from '../../../helpers';
import { serviceSaid, useSandbox } from '../../../helpers/sandbox';
import { clientIds, lastNameOf } from '../../../helpers/serviceApi';
import { pageHookProxy } from '../../../helpers/trigger';

/*
 * The service's limits, met in n8n's engine against the sandbox playing them: requests sent
 * again when the service refused them and a resend is safe, never when it may have acted; the
 * execution's requests in flight and its pace.
 */

const { sandbox, credentials } = useSandbox({ clients: 1_000, controls: true });

afterEach(() => {
	sandbox().clearFaults();
	sandbox().setLimits({ rateLimit: null, latencyMs: 0, unavailableRate: 0 });
	sandbox().resetTraffic();
});

let batch = 0;
/** Input items naming `count` new clients, by a last name that says which. */
function newClients(count: number): IDataObject[] {
	batch++;
	return Array.from({ length: count }, (_, index) => ({ lastName: `Batch ${batch} no. ${index}` }));
}

const create: INodeParameters = {
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: '={{ $json.lastName }}',
};

const posts = () =>
	sandbox()
		.requests()
		.filter((request) => request.method === 'POST');

/** How often each client was created (answered 201), by last name. */
function createdCounts(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of posts().filter((post) => post.status === 201))
		counts.set(lastNameOf(request), (counts.get(lastNameOf(request)) ?? 0) + 1);
	return counts;
}

describe('A bulk Create behind a rate limit', () => {
	it('creates each client exactly once: the refused requests are sent again, the whole execution waiting', async () => {
		sandbox().setLimits({ rateLimit: { requests: 40, burst: 10 } });
		const input = newClients(120);

		const run = await runNode({ credentials: credentials(), parameters: create, input });

		expect(run.error).toBeUndefined();
		expect(
			run.json.map((client) => client.entity && (client.entity as IDataObject).lastName),
		).toEqual(input.map((item) => item.lastName));
		expect(createdCounts()).toEqual(new Map(input.map((item) => [item.lastName as string, 1])));
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

		const run = await runNode({ credentials: credentials(), parameters: create, input });

		expect(run.error).toBeUndefined();
		expect(createdCounts().size).toBe(input.length);
		expect(sandbox().traffic().maxInFlight).toBe(32);
	});

	it("keeps n8n's Batching: items per batch, and the interval between batches", async () => {
		sandbox().setLimits({ latencyMs: 50 });
		const input = newClients(6);

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				...create,
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

	it('starts with 8 requests in flight, and one more for each the service accepts', async () => {
		sandbox().setLimits({ latencyMs: 300 });

		const run = await runNode({
			credentials: credentials(),
			parameters: create,
			input: newClients(12),
		});

		expect(run.error).toBeUndefined();
		const [first, ...others] = posts();
		const beforeAnswer = others.filter((post) => post.receivedAt < (first.answeredAt as number));
		expect(beforeAnswer).toHaveLength(7);
	});

	it('behind a window, keeps to the count two refusals showed: refused twice, then never', async () => {
		sandbox().setLimits({ rateLimit: { requests: 20, shape: 'sliding-window' } });

		const run = await runNode({
			credentials: credentials(),
			parameters: create,
			input: newClients(90),
		});

		expect(run.error).toBeUndefined();
		expect(createdCounts().size).toBe(90);
		// A refusal is the requests on their way when the first of them was answered 429.
		const refusals = posts()
			.filter((post) => post.status === 429)
			.map((post) => post.answeredAt as number)
			.filter((at, index, all) => index === 0 || at - all[index - 1] > 500);
		expect(refusals).toHaveLength(2);
	});

	it.each(['ratelimit', 'x-ratelimit'] as const)(
		'reads the limit from %s headers where the service sends them',
		async (headers) => {
			sandbox().setLimits({ rateLimit: { requests: 20, shape: 'sliding-window', headers } });

			const run = await runNode({
				credentials: credentials(),
				parameters: create,
				input: newClients(50),
			});

			expect(run.error).toBeUndefined();
			expect(createdCounts().size).toBe(50);
			expect(statuses().filter((status) => status === 429)).toEqual([]);
		},
	);

	it("after the node's own silence between runs in one execution (Loop Over Items), sends at the service's rate, not slower", async () => {
		sandbox().setLimits({ rateLimit: { requests: 10, burst: 10 } });
		const [one, many] = [newClients(1), newClients(60)];

		const runs = await runInRounds({
			credentials: credentials(),
			parameters: create,
			batches: [one, many],
			pauseMs: 3_000,
		});

		expect(runs.map((run) => [run.error, run.json.length])).toEqual([
			[undefined, 1],
			[undefined, 60],
		]);
		expect(createdCounts().size).toBe(61);
		// In the two seconds after the second run's first refusal's wait, the service's rate allowed 20.
		const [first] = posts().filter((post) => post.status === 429);
		const from = (first.answeredAt as number) + 1_000;
		const accepted = posts().filter(
			(post) => post.status === 201 && post.receivedAt >= from && post.receivedAt < from + 2_000,
		);
		expect(accepted.length).toBeGreaterThanOrEqual(14);
	});
});

describe('What is sent again, and what never is', () => {
	it('a POST answered 429 is sent again after the wait it asked, and the client created once', async () => {
		sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 1, path: '/clients' });
		const input = newClients(1);

		const run = await runNode({ credentials: credentials(), parameters: create, input });

		expect(run.error).toBeUndefined();
		const [refused, sent] = posts();
		expect([refused.status, sent.status]).toEqual([429, 201]);
		expect(sent.receivedAt - (refused.answeredAt as number)).toBeGreaterThanOrEqual(990);
		expect(createdCounts()).toEqual(new Map([[input[0].lastName as string, 1]]));
	});

	it('a POST answered 500 is not sent again: the client may exist, and the error says how to check', async () => {
		sandbox().injectFaults({ count: 1, status: 500, afterHandling: true, path: '/clients' });
		const createdBefore = sandbox()
			.changes()
			.filter((change) => change.cause === 'created').length;

		const run = await runNode({
			credentials: credentials(),
			parameters: create,
			input: newClients(1),
		});

		expect(posts().map((post) => post.status)).toEqual([500]);
		expect(
			sandbox()
				.changes()
				.filter((change) => change.cause === 'created'),
		).toHaveLength(createdBefore + 1);
		expect(run.error?.message).toBe(
			'The service could not complete the request (HTTP 500) [item 0]',
		);
		expect(run.error?.description).toBe(
			`${serviceSaid(sandbox())} The service may have created the client before this happened, so the node did not send it again. ` +
				'A Retry of this execution from the executions list is safe: the node looks for the client first, and creates it only if there is none. ' +
				"Before you run the node any other way, check whether it exists: Client > Get Many with 'Modified Since' set to a time before this run lists it. " +
				"Client > Create or Update with a 'Reference Number' is safe to run again: the service refuses a second client with the number, and the node updates the one that has it.",
		);
	});

	it.each([502, 503, 504] as const)(
		'a POST answered %s is not sent again either; n8n is told the service is unavailable',
		async (status) => {
			sandbox().injectFaults({ count: 1, status, retryAfterSeconds: 0, path: '/clients' });

			const run = await runNode({
				credentials: credentials(),
				parameters: create,
				input: newClients(1),
			});

			expect(posts().map((post) => post.status)).toEqual([status]);
			expect(run.error?.description).toContain(
				'The service may have created the client before this happened',
			);
			expect((run.error as { failure?: unknown }).failure).toEqual({
				cause: 'temporarily-unavailable',
			});
		},
	);

	it.each([502, 503, 504] as const)('a GET answered %s is sent again', async (status) => {
		const [clientId] = await clientIds(sandbox());
		sandbox().clearRequests();
		sandbox().injectFaults({
			count: 1,
			status,
			retryAfterSeconds: 0,
			path: `/clients/${clientId}`,
		});

		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'get', clientId },
		});

		expect(run.error).toBeUndefined();
		expect(
			sandbox()
				.requests()
				.map((request) => `${request.method} ${request.status}`),
		).toEqual(['GET ' + status, 'GET 200']);
	});

	it('a GET whose connection closed before the answer is sent again', async () => {
		const [clientId] = await clientIds(sandbox());
		sandbox().clearRequests();
		sandbox().injectFaults({ count: 1, drop: true, path: `/clients/${clientId}` });

		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'get', clientId },
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expect.objectContaining({ id: clientId })]);
		expect(
			sandbox()
				.requests()
				.map((request) => `${request.method} ${request.status}`),
		).toEqual(['GET undefined', 'GET 200']);
	});

	it('a POST whose connection closed after the service acted is not sent again: the error says the client may exist', async () => {
		sandbox().injectFaults({ count: 1, drop: true, afterHandling: true, path: '/clients' });
		const createdBefore = sandbox()
			.changes()
			.filter((change) => change.cause === 'created').length;

		const run = await runNode({
			credentials: credentials(),
			parameters: create,
			input: newClients(1),
		});

		expect(posts()).toHaveLength(1);
		expect(
			sandbox()
				.changes()
				.filter((change) => change.cause === 'created'),
		).toHaveLength(createdBefore + 1);
		expect(run.error?.message).toBe(
			'The connection to the service closed before it answered [item 0]',
		);
		expect(run.error?.description).toContain(
			'The service may have created the client before this happened, so the node did not send it again.',
		);
	});

	it('gives up after 5 tries, saying so', async () => {
		sandbox().injectFaults({ count: 100, status: 429, retryAfterSeconds: 0, path: '/firm' });

		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'firm', operation: 'get' },
		});

		expect(sandbox().requests()).toHaveLength(5);
		expect(run.error?.message).toBe('The service is receiving too many requests [item 0]');
		expect(run.error?.description).toContain(
			'The node sent the request 5 times, waiting between tries, and none went through.',
		);
		// `Retry-After: 0` says to come back now, not how long to wait before running the node again.
		expect(run.error?.description).toContain('Wait a few minutes and run the node again');
	});

	it('a Retry-After beyond the wait the node makes fails at once, with how long it asked; the other items are not sent', async () => {
		sandbox().setLimits({ rateLimit: { requests: 1, perSeconds: 3_600, burst: 1 } });
		const input = newClients(3 * 32);

		const started = performance.now();
		const run = await runNode({
			credentials: credentials(),
			parameters: create,
			input,
			continueOnFail: true,
		});

		expect(performance.now() - started).toBeLessThan(10_000); // not the 60 s a wait may last
		expect(run.items.filter((item) => !item.error)).toHaveLength(1);
		const failed = run.items.filter((item) => item.error);
		expect(failed).toHaveLength(input.length - 1);
		for (const { error } of failed) {
			expect(error?.message).toMatch(/^The service is receiving too many requests \[item \d+\]$/);
			expect(error?.description).toContain(
				'It asked to wait 60 minutes before the next request; the node waits at most 60 seconds.',
			);
		}
		// Only those in flight when the service first refused were sent; the rest never left.
		expect(posts().length).toBeLessThanOrEqual(32 + 1);
		expect(createdCounts().size).toBe(1);
	});

	it('a wait ends when n8n cancels the execution', async () => {
		sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 30, path: '/firm' });

		const started = performance.now();
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'firm', operation: 'get' },
			cancelAfterMs: 300,
		});

		expect(performance.now() - started).toBeLessThan(10_000); // not the 30 s asked
		expect(run.json).toEqual([]);
		expect(run.error?.message).toBe('This operation was aborted');
		expect(sandbox().requests()).toHaveLength(1);
	});
});

describe('How long a wait: Retry-After as RFC 9110 defines it', () => {
	const firmGet: INodeParameters = { resource: 'firm', operation: 'get' };
	/** The node's shortest own back-off before a second send: half of its first second (jitter). */
	const SHORTEST_BACKOFF_MS = 500;

	it.each(['1.5', '0.5', '-1', '10, 20', 'in a moment', 'Sun, 31 Feb 2030 08:00:00 GMT'])(
		'"%s" is no wait the service asked: the node waits its own back-off before sending again',
		async (retryAfterText) => {
			sandbox().injectFaults({ count: 1, status: 429, retryAfterText, path: '/firm' });

			const run = await runNode({ credentials: credentials(), parameters: firmGet });

			expect(run.error).toBeUndefined();
			const [refused, sent] = sandbox().requests();
			expect([refused.status, sent.status]).toEqual([429, 200]);
			expect(sent.receivedAt - (refused.answeredAt as number)).toBeGreaterThanOrEqual(
				SHORTEST_BACKOFF_MS - 10,
			);
		},
	);

	it('refused every time with a malformed one, the error asks for no particular wait, nor n8n', async () => {
		sandbox().injectFaults({ count: 5, status: 429, retryAfterText: '1.5', path: '/firm' });

		const run = await runNode({ credentials: credentials(), parameters: firmGet });

		expect(sandbox().requests()).toHaveLength(5);
		expect(run.error?.description).toContain(
			"The node sent the request 5 times, waiting between tries, and none went through. Wait a few minutes and run the node again, or space the requests out with 'Batching'",
		);
		expect((run.error as { failure?: unknown }).failure).toEqual({ cause: 'rate-limited' });
	});

	it.each([
		['ahead of', 2],
		['behind', -2],
	])(
		"an HTTP date is read against the answer's Date: a service clock %s the host's by hours still means the wait it names",
		async (_case, hours) => {
			sandbox().setClock({ offsetMs: hours * 3_600_000 });
			try {
				sandbox().injectFaults({
					count: 1,
					status: 429,
					retryAfterSeconds: 1,
					retryAfterAs: 'date',
					path: '/firm',
				});

				const run = await runNode({ credentials: credentials(), parameters: firmGet });

				// Against the host's clock, that date is hours away (the run fails at once) or past (sent again at once).
				expect(run.error).toBeUndefined();
				const [refused, sent] = sandbox().requests();
				expect([refused.status, sent.status]).toEqual([429, 200]);
				expect(sent.receivedAt - (refused.answeredAt as number)).toBeGreaterThanOrEqual(990);
			} finally {
				sandbox().setClock({ offsetMs: 0 });
			}
		},
	);
});

describe('Return All retries the page, not the run', () => {
	it('rides out a 429 and a 503 mid-way: every client once, each refused page asked again', async () => {
		const firm = await clientIds(sandbox());
		sandbox().clearRequests();
		const proxy = await pageHookProxy(sandbox());
		try {
			proxy.onLaterPage((request) => {
				if (request === 3)
					sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 1, path: '/clients' });
				if (request === 5) sandbox().injectFaults({ count: 1, status: 503, path: '/clients' });
			});

			const run = await runNode({
				credentials: proxy.credentials(),
				parameters: { resource: 'client', operation: 'getAll', returnAll: true },
			});

			expect(run.error).toBeUndefined();
			expect(run.json.map((client) => client.id)).toEqual(firm);
			const pages = sandbox()
				.requests()
				.map((request) => [request.query.cursor ?? 'first', request.status]);
			const later = Math.floor(firm.length / 200) + 1 - 4; // pages after the fourth
			expect(pages.map(([, status]) => status)).toEqual([
				200,
				200,
				429,
				200,
				503,
				200,
				...Array(later).fill(200),
			]);
			expect(pages[2][0]).toBe(pages[3][0]);
			expect(pages[4][0]).toBe(pages[5][0]);
		} finally {
			await proxy.close();
		}
	});
});
