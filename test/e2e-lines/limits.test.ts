/**
 * The service's limits on each n8n line (see environment.ts), run by `n8n execute`: a bulk Create
 * behind a rate limit, a Return All refused mid-way, what is sent again and what is not, and a
 * wait longer than the node makes. The tests' requests carry an API key of their own, so that the
 * sandbox's faults hit them alone (the published triggers poll meanwhile). n8n 1.x keeps no
 * header of an answer it throws (OAuth2 requests): there the node cannot read Retry-After, and
 * waits its own growing wait instead.
 */
import type { LoggedRequest } from 'compliance-records-sandbox';
import { nodeOutput, type ExecutionRun } from '../helpers/n8n/instance';
import { newApiKeyCredential } from '../helpers/sandboxControl';
import { clientIds, lastNameOf } from '../helpers/serviceApi';
import {
	line,
	lines,
	type NodeCredentials,
	runOperation,
	sandboxControl,
	signedIn,
	VERSIONS,
} from './environment';

let batch = 0;

describe.each(VERSIONS)("n8n %s: the service's limits", (version) => {
	let apiKey: string;
	let credentials: NodeCredentials;

	beforeAll(async () => {
		const credential = await newApiKeyCredential(
			await signedIn(version),
			lines().sandbox.baseUrl,
			`Limits (n8n ${version})`,
		);
		apiKey = credential.apiKey;
		credentials = { complianceRecordsApi: { id: credential.id, name: credential.name } };
	});
	afterEach(async () => {
		await sandboxControl('POST', '/limits', { rateLimit: null });
		await sandboxControl('DELETE', '/faults');
	});

	/** Runs Run → (List →) Operation, the operation given `parameters`; the requests it made with the test's key. */
	async function run(
		parameters: Record<string, unknown>,
		options: { listFirst?: number; nodeCredentials?: NodeCredentials } = {},
	): Promise<{ run: ExecutionRun; requests: LoggedRequest[] }> {
		const nodeCredentials = options.nodeCredentials ?? credentials;
		const list = options.listFirst ? { limit: options.listFirst, credentials } : undefined;
		const { run: result, requests } = await runOperation(
			version,
			parameters,
			nodeCredentials,
			list,
		);
		const bearer = 'complianceRecordsApi' in nodeCredentials ? `Bearer ${apiKey}` : undefined;
		return {
			run: result,
			requests: requests.filter((request) =>
				bearer ? request.headers.authorization === bearer : request.path === '/firm',
			),
		};
	}

	const createFrom = (prefix: string) => ({
		resource: 'client',
		operation: 'create',
		status: 'PROSPECT',
		entityType: 'individual',
		firstName: 'Ada',
		lastName: `={{ "${prefix} " + $json.id }}`,
	});

	test('a bulk Create behind a rate limit creates each client exactly once', async () => {
		const prefix = `Limited ${version} ${++batch}`;
		await sandboxControl('POST', '/limits', { rateLimit: { requests: 20, burst: 5 } });

		const { run: result, requests } = await run(createFrom(prefix), { listFirst: 40 });

		expect(nodeOutput(result, 'Operation')).toHaveLength(40);
		const posts = requests.filter((request) => request.method === 'POST');
		const created = posts.filter((request) => request.status === 201).map(lastNameOf);
		expect(created).toHaveLength(40);
		expect(new Set(created).size).toBe(40);
		expect(posts.filter((request) => request.status === 429).length).toBeGreaterThan(0);
	});

	test('Return All rides out a 429 and a 503 mid-way: every client once', async () => {
		const firm = await clientIds({ baseUrl: lines().sandbox.baseUrl, apiKey });
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 429,
			retryAfterSeconds: 1,
			path: '/clients',
			apiKey,
			after: 1,
		});
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 503,
			path: '/clients',
			apiKey,
			after: 2,
		});

		const { run: result, requests } = await run({
			resource: 'client',
			operation: 'getAll',
			returnAll: true,
		});

		const ids = nodeOutput(result, 'Operation').map((client) => client.id);
		expect(new Set(ids)).toEqual(new Set(firm));
		expect(ids).toHaveLength(firm.length);
		expect(
			requests
				.slice(0, 4)
				.map((request) => [request.query.cursor === undefined ? 'first' : 'later', request.status]),
		).toEqual([
			['first', 200],
			['later', 429],
			['later', 503],
			['later', 200],
		]);
	});

	test('a POST answered 429 is sent again; one answered 500 is not, and the error says the client may exist', async () => {
		const prefix = `Refused ${version} ${++batch}`;
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 429,
			retryAfterSeconds: 1,
			path: '/clients',
			apiKey,
			after: 1,
		});
		const retried = await run(createFrom(prefix), { listFirst: 1 });
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 500,
			path: '/clients',
			apiKey,
			after: 1,
			afterHandling: true,
		});
		const notRetried = await run(createFrom(`${prefix} again`), { listFirst: 1 });

		expect(
			retried.requests
				.filter((request) => request.method === 'POST')
				.map((request) => request.status),
		).toEqual([429, 201]);
		expect(
			notRetried.requests
				.filter((request) => request.method === 'POST')
				.map((request) => request.status),
		).toEqual([500]);
		expect(notRetried.run.data.resultData.error).toMatchObject({
			message: 'The service could not complete the request (HTTP 500) [item 0]',
			description: expect.stringContaining(
				'The service may have created the client before this happened, so the node did not send it again.',
			),
		});
	});

	test('a Retry-After longer than the node waits fails at once, saying how long; through OAuth2 on 1.x, whose errors keep no header, the node waits its own wait', async () => {
		const firm = { resource: 'firm', operation: 'get' };
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 429,
			retryAfterSeconds: 3600,
			path: '/firm',
			apiKey,
		});
		const withKey = await run(firm);
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 429,
			retryAfterSeconds: 3600,
			path: '/firm',
		});
		const withOAuth2 = await run(firm, {
			nodeCredentials: { complianceRecordsOAuth2Api: line(version).oAuth2 },
		});

		const longWait = {
			message: 'The service is receiving too many requests [item 0]',
			description: expect.stringContaining('It asked to wait 60 minutes before the next request'),
		};
		expect(withKey.requests.map((request) => request.status)).toEqual([429]);
		expect(withKey.run.data.resultData.error).toMatchObject(longWait);
		const statuses = withOAuth2.requests
			.map((request) => request.status)
			.filter((status) => status !== 401); // a token renewed on the way
		if (version.startsWith('1.')) {
			expect(statuses).toEqual([429, 200]);
			expect(nodeOutput(withOAuth2.run, 'Operation')).toEqual([
				expect.objectContaining({ object: 'firm' }),
			]);
		} else {
			expect(statuses).toEqual([429]);
			expect(withOAuth2.run.data.resultData.error).toMatchObject(longWait);
		}
	});
});
