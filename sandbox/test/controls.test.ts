/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import { networkInterfaces } from 'node:os';
import { performance } from 'node:perf_hooks';

import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import type { ApiClient } from './helpers';
import {
	apiClient,
	controlClient,
	newIndividualClient,
	send,
	signIn,
	tokenRequest,
} from './helpers';

describe('test controls', () => {
	let sandbox: Sandbox;
	let api: ApiClient;
	let control: ReturnType<typeof controlClient>;

	beforeEach(async () => {
		sandbox = await startSandbox({ clients: 5, controls: true, apiPath: '/api' });
		api = apiClient(sandbox);
		control = controlClient(sandbox);
	});
	afterEach(() => sandbox.close());

	describe('clock', () => {
		it('moves by an offset and freezes, programmatically and over HTTP', async () => {
			sandbox.setClock({ offsetMs: 86_400_000 });
			const tomorrow = Date.parse(sandbox.now());
			expect(tomorrow - Date.now()).toBeGreaterThan(86_000_000);
			const frozen = await control('POST', '/clock', { frozenAt: '2031-05-01T08:00:00.000Z' });
			expect(frozen.body.data).toEqual({
				now: '2031-05-01T08:00:00.000Z',
				offsetMs: 86_400_000,
				frozenAt: '2031-05-01T08:00:00.000Z',
			});
			expect(sandbox.now()).toBe('2031-05-01T08:00:00.000Z');
			const created = await api.post('/clients', newIndividualClient());
			expect(created.body.data.createdAt).toBe('2031-05-01T08:00:00.000Z');
			await control('POST', '/clock', { frozenAt: null, offsetMs: 0 });
			expect(
				Math.abs(Date.parse((await control('GET', '/clock')).body.data.now) - Date.now()),
			).toBeLessThan(5_000);
		});

		it("sets every answer's Date header, as a service's own clock would: offset, frozen, on errors, faults and the authorization server", async () => {
			const dateOf = (reply: { headers: Headers }) => Date.parse(reply.headers.get('date') ?? '');
			sandbox.setClock({ offsetMs: -3 * 86_400_000 });
			const before = Date.parse(sandbox.now());
			const reply = await api.get('/clients?limit=1');
			expect(reply.headers.get('date')).toMatch(
				/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
			);
			expect(dateOf(reply)).toBeGreaterThanOrEqual(before - 1_000); // one-second resolution
			expect(dateOf(reply)).toBeLessThanOrEqual(Date.parse(sandbox.now()));

			sandbox.setClock({ frozenAt: '2031-05-01T08:00:00.750Z' });
			sandbox.injectFaults({ count: 1, status: 503, delayMs: 50, path: '/firm' });
			const answers = [
				await api.get('/clients'),
				await api.get('/clients/nobody'),
				await api.get('/firm'),
				await send(`${sandbox.authUrl}/.well-known/openid-configuration`),
				await control('GET', '/clock'),
			];
			expect(answers.map((answer) => answer.status)).toEqual([200, 404, 503, 200, 200]);
			for (const answer of answers)
				expect(answer.headers.get('date')).toBe('Thu, 01 May 2031 08:00:00 GMT');
		});

		it('refuses settings that are not a time', async () => {
			expect(() => sandbox.setClock({ frozenAt: 'soon' })).toThrow(/frozenAt must be a date-time/);
			expect(() => sandbox.setClock({ offsetMs: Number.NaN })).toThrow(
				/offsetMs must be a finite number/,
			);
			const reply = await control('POST', '/clock', { offsetMs: '1h' });
			expect(reply.status).toBe(400);
			expect(reply.body.message).toMatch(/offsetMs/);
		});
	});

	describe('faults', () => {
		it.each([
			[500, undefined, null],
			[503, undefined, null],
			[503, 30, '30'],
			[429, undefined, '1'],
			[429, 12, '12'],
		] as const)(
			'answer the next requests with %s (Retry-After %s), then let requests through',
			async (status, retryAfterSeconds, header) => {
				sandbox.injectFaults({ count: 2, status, retryAfterSeconds });
				for (let attempt = 0; attempt < 2; attempt++) {
					const reply = await api.get('/firm');
					expect(reply.status).toBe(status);
					expect(reply.body).toEqual({ message: expect.any(String) });
					expect(reply.headers.get('retry-after')).toBe(header);
				}
				expect((await api.get('/firm')).status).toBe(200);
			},
		);

		it('can apply to one path only, leaving other requests alone', async () => {
			sandbox.injectFaults({ count: 1, status: 500, path: '/clients' });
			expect((await api.get('/firm')).status).toBe(200);
			expect((await api.get('/clients?limit=1')).status).toBe(500);
			expect((await api.get('/clients?limit=1')).status).toBe(200);
		});

		it('can delay a request (answered normally after the delay, or with the status)', async () => {
			sandbox.injectFaults({ count: 1, delayMs: 400, path: '/clients' });
			const finished: string[] = [];
			const slow = api.get('/clients').then((reply) => finished.push(`slow ${reply.status}`));
			const fast = api.get('/firm').then((reply) => finished.push(`fast ${reply.status}`));
			await Promise.all([slow, fast]);
			expect(finished).toEqual(['fast 200', 'slow 200']);

			sandbox.injectFaults({ count: 1, delayMs: 50, status: 503 });
			expect((await api.get('/firm')).status).toBe(503);
		});

		it('are injected and cleared over HTTP too', async () => {
			expect(
				(await control('POST', '/faults', { count: 3, status: 429, retryAfterSeconds: 2 })).status,
			).toBe(204);
			expect((await api.get('/firm')).status).toBe(429);
			expect((await control('DELETE', '/faults')).status).toBe(204);
			expect((await api.get('/firm')).status).toBe(200);
			const invalid = await control('POST', '/faults', { count: 1, status: 404 });
			expect(invalid.status).toBe(400);
			expect(invalid.body.message).toMatch(/status must be 500, 502, 503, 504 or 429/);
		});

		it("can send Retry-After as an HTTP date: the service clock's now plus the delay, from the same instant as Date", async () => {
			sandbox.setClock({ frozenAt: '2031-05-01T08:00:00.750Z' });
			sandbox.injectFaults({ count: 1, status: 429, retryAfterSeconds: 90, retryAfterAs: 'date' });
			const frozen = await api.get('/firm');
			expect(frozen.status).toBe(429);
			expect(frozen.headers.get('retry-after')).toBe('Thu, 01 May 2031 08:01:30 GMT');
			expect(frozen.headers.get('date')).toBe('Thu, 01 May 2031 08:00:00 GMT');

			sandbox.setClock({ frozenAt: null, offsetMs: 2 * 86_400_000 });
			expect(
				(
					await control('POST', '/faults', {
						count: 2,
						status: 503,
						retryAfterSeconds: 30,
						retryAfterAs: 'date',
					})
				).status,
			).toBe(204);
			for (let attempt = 0; attempt < 2; attempt++) {
				const before = Date.parse(sandbox.now());
				const running = await api.get('/firm');
				const after = Date.parse(sandbox.now());
				const retryAfter = running.headers.get('retry-after')!;
				expect(retryAfter).toMatch(
					/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
				);
				expect(Date.parse(retryAfter)).toBeGreaterThan(before + 30_000 - 1_000); // one-second resolution
				expect(Date.parse(retryAfter)).toBeLessThanOrEqual(after + 30_000);
				expect(Date.parse(retryAfter) - Date.parse(running.headers.get('date')!)).toBe(30_000);
			}

			sandbox.injectFaults({ count: 1, status: 429, retryAfterAs: 'date' }); // 429 waits 1 s unless told
			const oneSecond = await api.get('/firm');
			expect(
				Date.parse(oneSecond.headers.get('retry-after')!) -
					Date.parse(oneSecond.headers.get('date')!),
			).toBe(1_000);
			expect(() =>
				sandbox.injectFaults({ count: 1, status: 429, retryAfterAs: 'http-date' as 'date' }),
			).toThrow(/retryAfterAs must be 'seconds' or 'date'/);
		});

		it('can send Retry-After as any text, a malformed one included, and then no other', async () => {
			sandbox.injectFaults({ count: 1, status: 429, retryAfterText: '1.5' });
			const malformed = await api.get('/firm');
			expect(malformed.status).toBe(429);
			expect(malformed.headers.get('retry-after')).toBe('1.5');

			expect(
				(await control('POST', '/faults', { count: 1, status: 503, retryAfterText: '10, 20' }))
					.status,
			).toBe(204);
			expect((await api.get('/firm')).headers.get('retry-after')).toBe('10, 20');
			expect(() =>
				sandbox.injectFaults({
					count: 1,
					status: 429,
					retryAfterText: 'soon',
					retryAfterSeconds: 2,
				}),
			).toThrow(/retryAfterText must be text, without retryAfterSeconds or retryAfterAs/);
		});

		describe('hang', () => {
			const waitFor = async (condition: () => boolean) => {
				while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
			};

			it('reads the request and never answers it: the client gives up, the log shows no status, the next request is answered', async () => {
				const lines: string[] = [];
				const logged = await startSandbox({ log: (line) => lines.push(line) });
				try {
					const client = apiClient(logged);
					logged.injectFaults({ count: 1, hang: true, path: '/clients' });
					const body = newIndividualClient({ referenceNumber: 'HUNG' });
					const started = performance.now();
					const gaveUp = fetch(`${logged.baseUrl}/clients`, {
						method: 'POST',
						headers: {
							'accept-version': '1.0.0',
							authorization: `Bearer ${logged.apiKey}`,
							'content-type': 'application/json',
						},
						body: JSON.stringify(body),
						signal: AbortSignal.timeout(300), // a client with a short timeout
					});
					await expect(gaveUp).rejects.toMatchObject({ name: 'TimeoutError' });
					expect(performance.now() - started).toBeGreaterThanOrEqual(290);
					// The sandbox lets the request go once its client closed the connection.
					await waitFor(() => lines.some((line) => line.startsWith('POST /clients aborted')));
					const [hung] = logged.requests();
					expect(hung).toMatchObject({ method: 'POST', path: '/clients', body });
					expect(hung.status).toBeUndefined();
					expect(hung.errorMessage).toBeUndefined();

					expect((await client.get('/clients')).body.meta.total).toBe(0); // never handled
					expect((await client.post('/clients', body)).status).toBe(201);
				} finally {
					await logged.close();
				}
			});

			it("does not hold up closing the sandbox: the hung request's connection is closed at once", async () => {
				const hanging = await startSandbox();
				hanging.injectFaults({ count: 1, hang: true });
				const pending = apiClient(hanging).get('/firm');
				await waitFor(() => hanging.requests().length === 1);
				const started = performance.now();
				await hanging.close();
				expect(performance.now() - started).toBeLessThan(500);
				await expect(pending).rejects.toThrow(/fetch failed/);
			});

			it('is injected over HTTP too, and alone: a request that hangs has no status or delay', async () => {
				expect(
					(await control('POST', '/faults', { count: 1, hang: true, path: '/firm' })).status,
				).toBe(204);
				await expect(
					fetch(`${sandbox.baseUrl}/firm`, { signal: AbortSignal.timeout(200) }),
				).rejects.toMatchObject({ name: 'TimeoutError' });
				expect((await api.get('/firm')).status).toBe(200);
				const invalid = await control('POST', '/faults', { count: 1, hang: true, status: 503 });
				expect(invalid).toMatchObject({
					status: 400,
					body: { message: 'hang never answers: give it no status or delayMs' },
				});
				expect(() => sandbox.injectFaults({ count: 1, hang: true, delayMs: 10 })).toThrow(
					/hang never answers/,
				);
				expect(() => sandbox.injectFaults({ count: 1, hang: 'yes' as unknown as boolean })).toThrow(
					/hang must be true or false/,
				);
			});
		});

		describe('drop', () => {
			it('closes the connection without an answer; with afterHandling, after the request acted', async () => {
				sandbox.injectFaults({ count: 1, drop: true, path: '/firm' });
				await expect(fetch(`${sandbox.baseUrl}/firm`)).rejects.toThrow(/fetch failed/);
				expect((await api.get('/firm')).status).toBe(200);

				sandbox.injectFaults({ count: 1, drop: true, afterHandling: true, path: '/clients' });
				const body = newIndividualClient({ referenceNumber: 'DROPPED' });
				const lost = fetch(`${sandbox.baseUrl}/clients`, {
					method: 'POST',
					headers: {
						'accept-version': '1.0.0',
						authorization: `Bearer ${sandbox.apiKey}`,
						'content-type': 'application/json',
					},
					body: JSON.stringify(body),
				});
				await expect(lost).rejects.toThrow(/fetch failed/);
				const listed = (await api.get('/clients')).body.data as Array<{ referenceNumber?: string }>;
				expect(listed.filter((client) => client.referenceNumber === 'DROPPED')).toHaveLength(1);
				const posted = sandbox.requests().filter((request) => request.method === 'POST');
				expect(posted.map((request) => request.path)).toEqual(['/clients']);
				expect(posted[0].status).toBeUndefined();
			});

			it('is refused with an answer or a hang', () => {
				expect(() => sandbox.injectFaults({ count: 1, drop: true, status: 503 })).toThrow(
					/drop never answers/,
				);
				expect(() => sandbox.injectFaults({ count: 1, drop: true, hang: true })).toThrow(
					/drop never answers/,
				);
				expect(() => sandbox.injectFaults({ count: 1, drop: 'yes' as unknown as boolean })).toThrow(
					/drop must be true or false/,
				);
			});
		});

		it('refuses settings that make no fault', () => {
			expect(() => sandbox.injectFaults({ count: 0, status: 500 })).toThrow(/count/);
			expect(() => sandbox.injectFaults({ count: 1 })).toThrow(
				/give a status, a delayMs \(or both\), hang: true or drop: true/,
			);
			expect(() => sandbox.injectFaults({ count: 1, status: 500, path: 'clients' })).toThrow(
				/path must start with/,
			);
		});
	});

	describe('request log', () => {
		it('records every API request in order, as received: method, path, decoded query, raw url, headers, body, status', async () => {
			sandbox.injectFaults({ count: 1, status: 503, path: '/firm' });
			await api.get('/firm');
			await api.get('/clients?limit=2&sinceModifiedAt=2020-01-01T00%3A00%3A00%2B01%3A00');
			await api.post('/clients', newIndividualClient({ referenceNumber: 'LOGGED' }));
			await send(`${new URL(sandbox.baseUrl).origin}/elsewhere`);
			await control('GET', '/clock');
			const log = sandbox.requests();
			expect(log.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
				'GET /firm 503',
				'GET /clients 200',
				'POST /clients 201',
				'GET /elsewhere 404',
			]);
			expect(log[1]).toMatchObject({
				query: { limit: '2', sinceModifiedAt: '2020-01-01T00:00:00+01:00' },
				url: '/api/clients?limit=2&sinceModifiedAt=2020-01-01T00%3A00%3A00%2B01%3A00',
				headers: { 'accept-version': '1.0.0', authorization: `Bearer ${sandbox.apiKey}` },
				body: undefined,
			});
			expect(log[2].body).toEqual(newIndividualClient({ referenceNumber: 'LOGGED' }));
			for (const entry of log) expect(entry.answeredAt).toBeGreaterThanOrEqual(entry.receivedAt);
			expect(log[1].receivedAt).toBeGreaterThanOrEqual(log[0].answeredAt as number);
			expect((await control('GET', '/requests')).body.data).toEqual(log);
			sandbox.clearRequests();
			expect(sandbox.requests()).toEqual([]);
			await api.get('/firm');
			await control('DELETE', '/requests');
			expect(sandbox.requests()).toEqual([]);
		});

		it('records the message of every error answer, exactly as sent, and none for a success', async () => {
			sandbox.injectFaults({ count: 1, status: 429, path: '/firm' });
			const replies = [
				await api.get('/firm'),
				await api.get('/firm'),
				await api.get('/clients/nobody'),
				await api.get('/clients?limit=0'),
				await apiClient(sandbox, 'crs_not_a_key').get('/firm'),
				await send(`${new URL(sandbox.baseUrl).origin}/elsewhere`),
			];
			const log = sandbox.requests();
			expect(log.map((entry) => entry.status)).toEqual([429, 200, 404, 400, 401, 404]);
			expect(log.map((entry) => entry.errorMessage)).toEqual(
				replies.map((reply) => (reply.status >= 400 ? reply.body.message : undefined)),
			);
			expect(log.filter((entry) => entry.status !== 200).every((entry) => entry.errorMessage)).toBe(
				true,
			);
			expect((await control('GET', '/requests')).body.data).toEqual(log);
		});
	});

	it('the change log is readable over HTTP', async () => {
		const created = await api.post('/clients', newIndividualClient());
		expect((await control('GET', '/changes')).body.data).toEqual([
			{
				clientId: created.body.data.id,
				lastModifiedAt: created.body.data.lastModifiedAt,
				cause: 'created',
			},
		]);
	});

	it('completes AML determinations over HTTP', async () => {
		const [client] = (await api.get('/clients?limit=1')).body.data;
		const reply = await control('POST', `/clients/${client.id}/aml-determination`, {
			riskLevel: 'LOW',
		});
		expect(reply.status).toBe(200);
		expect(reply.body.data).toMatchObject({
			id: client.id,
			amlDeterminationStatus: 'COMPLETE',
			lastAmlDetermination: { riskLevel: 'LOW' },
		});
		expect((await api.get(`/clients/${client.id}`)).body.data.lastModifiedAt).toBe(
			reply.body.data.lastModifiedAt,
		);
		expect(
			(await control('POST', '/clients/nobody/aml-determination', { riskLevel: 'LOW' })).status,
		).toBe(404);
		expect(
			(await control('POST', `/clients/${client.id}/aml-determination`, { riskLevel: 'EXTREME' }))
				.status,
		).toBe(400);
	});

	it('expires every list cursor issued so far, programmatically and over HTTP: using one answers 400', async () => {
		const first = await api.get('/clients?limit=2');
		const cursor = encodeURIComponent(first.body.meta.next_cursor);
		expect((await api.get(`/clients?limit=2&cursor=${cursor}`)).status).toBe(200);
		sandbox.expireCursors();
		const expired = await api.get(`/clients?limit=2&cursor=${cursor}`);
		expect(expired).toMatchObject({
			status: 400,
			body: { message: 'This cursor has expired: start the listing again without a cursor.' },
		});
		const fresh = await api.get('/clients?limit=2');
		expect(fresh.body.data).toEqual(first.body.data);
		expect(
			(await api.get(`/clients?limit=2&cursor=${encodeURIComponent(fresh.body.meta.next_cursor)}`))
				.status,
		).toBe(200);
		expect((await control('POST', '/cursors/expire')).status).toBe(204);
		expect(
			(await api.get(`/clients?limit=2&cursor=${encodeURIComponent(fresh.body.meta.next_cursor)}`))
				.status,
		).toBe(400);
		// A cursor altered or used on another list is still refused as such, not as expired.
		const other = await api.get(
			`/individuals?limit=2&cursor=${encodeURIComponent(fresh.body.meta.next_cursor)}`,
		);
		expect(other.body.message).toMatch(/^Invalid cursor for this request/);
	});

	it('creates and revokes API keys over HTTP, as the web app does', async () => {
		const created = await control('POST', '/api-keys', { name: 'From a test', readOnly: true });
		expect(created.status).toBe(201);
		const keyed = apiClient(sandbox, created.body.data.key);
		expect((await keyed.get('/firm')).status).toBe(200);
		expect((await keyed.post('/clients', newIndividualClient())).status).toBe(403);
		expect((await control('POST', '/api-keys/revoke', { key: created.body.data.key })).status).toBe(
			204,
		);
		expect((await keyed.get('/firm')).status).toBe(401);
		expect((await control('POST', '/api-keys', {})).status).toBe(400);
	});

	it('revokes the OAuth2 grants over HTTP', async () => {
		const tokens = await signIn(sandbox);
		expect((await control('POST', '/oauth2/revoke-grants')).status).toBe(204);
		const refused = await tokenRequest(sandbox, {
			grant_type: 'refresh_token',
			client_id: sandbox.oauthClientId,
			refresh_token: tokens.refresh_token,
		});
		expect(refused.body.error).toBe('invalid_grant');
	});

	it('answers 404 for the control routes when controls are off, and does not log them', async () => {
		const plain = await startSandbox();
		try {
			const reply = await send(`${new URL(plain.baseUrl).origin}/__sandbox/clock`);
			expect(reply.status).toBe(404);
			expect(plain.requests()).toEqual([]);
		} finally {
			await plain.close();
		}
	});

	const externalAddress = Object.values(networkInterfaces())
		.flat()
		.find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

	(externalAddress ? it : it.skip)(
		'answers 404 for the control routes to callers that are not on this machine’s loopback',
		async () => {
			const exposed = await startSandbox({ host: '0.0.0.0', controls: true });
			try {
				const port = new URL(exposed.baseUrl).port;
				expect((await send(`http://127.0.0.1:${port}/__sandbox/clock`)).status).toBe(200);
				expect((await send(`http://${externalAddress}:${port}/__sandbox/clock`)).status).toBe(404);
			} finally {
				await exposed.close();
			}
		},
	);
});
