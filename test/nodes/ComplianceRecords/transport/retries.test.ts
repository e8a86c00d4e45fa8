import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../../helpers';
import { createEachClient, newClients } from '../../../helpers/bulkCreate';
import { serviceSaid, useControlledSandbox } from '../../../helpers/sandbox';
import { clientIds } from '../../../helpers/serviceApi';
import { pageHookProxy } from '../../../helpers/trigger';

/* Requests sent again when the service refused them and a resend is safe, never when it may have
 * acted; how long the node waits. In n8n's engine against the sandbox. */

const { sandbox, credentials, posts, created } = useControlledSandbox({ clients: 1_000 });
// From the service's change log: `created()` counts the 201s, and these tests lose the answer.
const createdByService = () =>
	sandbox()
		.changes()
		.filter((change) => change.cause === 'created').length;

describe('What is sent again, and what never is', () => {
	it('a POST answered 429 is sent again after the wait it asked, and the client created once', async () => {
		sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 1, path: '/clients' });
		const input = newClients(1);

		const run = await runNode({ credentials: credentials(), parameters: createEachClient, input });

		expect(run.error).toBeUndefined();
		const [refused, sent] = posts();
		expect([refused.status, sent.status]).toEqual([429, 201]);
		expect(sent.receivedAt - (refused.answeredAt as number)).toBeGreaterThanOrEqual(990);
		expect(created()).toEqual(new Map([[input[0].lastName as string, 1]]));
	});

	it('a POST answered 500 is not sent again: the client may exist, and the error says how to check', async () => {
		sandbox().injectFaults({ count: 1, status: 500, afterHandling: true, path: '/clients' });
		const createdBefore = createdByService();

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(1),
		});

		expect(posts().map((post) => post.status)).toEqual([500]);
		expect(createdByService()).toBe(createdBefore + 1);
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
				parameters: createEachClient,
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
		const createdBefore = createdByService();

		const run = await runNode({
			credentials: credentials(),
			parameters: createEachClient,
			input: newClients(1),
		});

		expect(posts()).toHaveLength(1);
		expect(createdByService()).toBe(createdBefore + 1);
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
			parameters: createEachClient,
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
		expect(created().size).toBe(1);
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
