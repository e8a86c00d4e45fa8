/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import type { INodeParameters } from 'n8n-workflow';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	connectOAuth2,
	CredentialStore,
	credentialsFor,
	loadOptions,
	runNode,
} from '../../../helpers';
import { expectReceived, serviceSaid, useSandbox } from '../../../helpers/sandbox';

const { sandbox, credentials } = useSandbox({ clients: 2, apiPath: '/v1' });

const firmGet: INodeParameters = { resource: 'firm', operation: 'get' };

/**
 * On Linux a connection to 0.0.0.0 reaches the services listening on this machine, so a base URL
 * of http://0.0.0.0:<sandbox port> is a plain-http, non-loopback address that would deliver the
 * credential to the sandbox if the node sent it: the sandbox's request log shows whether it did.
 */
const remoteLookingBaseUrl = () => sandbox().baseUrl.replace('127.0.0.1', '0.0.0.0');

describe('The node refuses a plain-http remote base URL before sending anything', () => {
	it('the control: that address does reach the sandbox', async () => {
		const response = await fetch(`${remoteLookingBaseUrl()}/firm`);

		expect(response.status).toBe(400);
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('with an API key', async () => {
		const store = new CredentialStore({
			complianceRecordsApi: { baseUrl: remoteLookingBaseUrl(), apiKey: sandbox().apiKey },
		});

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error?.message).toBe("Insecure or invalid 'Base URL'");
		expect(run.error?.description).toMatch(
			/^Refusing to send credentials to http:\/\/0\.0\.0\.0:\d+: only https:\/\//,
		);
		expect(sandbox().requests()).toEqual([]);
	});

	it('with OAuth2', async () => {
		const store = credentialsFor(sandbox());
		await connectOAuth2(store);
		store.set('complianceRecordsOAuth2Api', {
			...store.stored('complianceRecordsOAuth2Api'),
			baseUrl: remoteLookingBaseUrl(),
		});
		sandbox().clearRequests();

		const run = await runNode({
			credentials: store,
			parameters: { ...firmGet, authentication: 'oAuth2' },
		});

		expect(run.error?.message).toBe("Insecure or invalid 'Base URL'");
		expect(sandbox().requests()).toEqual([]);
	});

	it('with no base URL at all', async () => {
		const store = new CredentialStore({
			complianceRecordsApi: { baseUrl: '  ', apiKey: sandbox().apiKey },
		});

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error?.message).toBe("The credential has no 'Base URL'");
		expect(sandbox().requests()).toEqual([]);
	});
});

describe('Base URL and version header', () => {
	it('a base URL with spaces and trailing slashes still reaches the right path', async () => {
		const store = new CredentialStore({
			complianceRecordsApi: { baseUrl: ` ${sandbox().baseUrl}// `, apiKey: sandbox().apiKey },
		});

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()[0].url).toBe('/v1/firm');
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/firm',
			bearer: sandbox().apiKey,
		});
	});

	it('every request, each page included, carries accept-version 1.0.0 and the credential', async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'individual', operation: 'getAll', limit: 1 },
		});
		await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'getAll', returnAll: true },
		});

		expect(run.error).toBeUndefined();
		for (const request of sandbox().requests()) {
			expect(request.headers['accept-version']).toBe('1.0.0');
			expect(request.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		}
	});
});

describe('n8n is handed the credential the node has read', () => {
	it('a dropdown reads the credential once for its request, not once more inside n8n', async () => {
		const store = credentials();

		const partners = await loadOptions('getPartners', {
			credentials: store,
			parameters: { resource: 'client', operation: 'create' },
		});

		expect(partners.length).toBeGreaterThan(0);
		expect(sandbox().requests()).toHaveLength(1);
		expect(store.reads).toBe(1);
	});
});

/**
 * A server at another origin of this machine that answers every request with a redirect to the
 * same path at the sandbox: a stand-in for a base URL whose answer sends the client elsewhere.
 */
async function redirectingTo(
	target: () => string,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
	const server: Server = createServer((request, response) => {
		response.writeHead(307, { location: `${target()}${request.url}` }).end();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('A redirect to another origin does not carry the credential', () => {
	// The sandbox by the name localhost: the same machine, but another origin than 127.0.0.1.
	const sandboxRoot = () => sandbox().baseUrl.replace('/v1', '').replace('127.0.0.1', 'localhost');
	let redirect: Awaited<ReturnType<typeof redirectingTo>>;
	beforeAll(async () => {
		redirect = await redirectingTo(sandboxRoot);
	});
	afterAll(() => redirect.close());

	it('the control: a request that carries the key there is answered', async () => {
		const response = await fetch(`${sandboxRoot()}/v1/firm`, {
			headers: { authorization: `Bearer ${sandbox().apiKey}`, 'accept-version': '1.0.0' },
		});

		expect(response.status).toBe(200);
	});

	it('an operation: the request follows the redirect without the API key, and the refusal reaches the user', async () => {
		const store = new CredentialStore({
			complianceRecordsApi: { baseUrl: `${redirect.baseUrl}/v1`, apiKey: sandbox().apiKey },
		});

		const run = await runNode({ credentials: store, parameters: firmGet });

		const [arrived] = sandbox().requests();
		expect(arrived.path).toBe('/firm');
		expect(arrived.headers.authorization).toBeUndefined();
		expect(run.error?.message).toBe('The service refused the API key [item 0]');
	});

	it('a dropdown, with OAuth2: the access token does not follow the redirect either', async () => {
		const store = credentialsFor(sandbox());
		await connectOAuth2(store);
		store.set('complianceRecordsOAuth2Api', {
			...store.stored('complianceRecordsOAuth2Api'),
			baseUrl: `${redirect.baseUrl}/v1`,
		});
		sandbox().clearRequests();

		const refusal = await loadOptions('getPartners', {
			credentials: store,
			parameters: { resource: 'client', operation: 'create', authentication: 'oAuth2' },
		}).catch((error: Error) => error);

		expect((refusal as Error).message).toBe('The service refused the OAuth2 connection');
		expect((refusal as { description?: string }).description).toContain(serviceSaid(sandbox()));

		expect(sandbox().requests().length).toBeGreaterThan(0);
		for (const request of sandbox().requests())
			expect(request.headers.authorization).toBeUndefined();
	});
});

describe('A service that stops answering', () => {
	const hangOnce = () => sandbox().injectFaults({ count: 1, hang: true });

	it("fails within the 'Timeout' of the node's Request Options, and says what to do", async () => {
		hangOnce();
		const started = performance.now();

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'client',
				operation: 'get',
				clientId: 'any',
				requestOptions: { timeout: 1500 },
			},
		});

		expect(performance.now() - started).toBeLessThan(5_000);
		expect(run.error?.message).toBe('The service did not answer within 1.5 seconds [item 0]');
		expect(run.error?.description).toBe(
			"Check that the service is up, then run the node again. If it is only slow, set 'Timeout' under 'Request Options' in the node's settings to 3000 (milliseconds; it waited 1500), or turn on 'Retry On Fail'.",
		);
		expect(
			sandbox()
				.requests()
				.map((request) => [request.path, request.status]),
		).toEqual([['/clients/any', undefined]]);
	});

	it('a page of Get Many too', async () => {
		sandbox().injectFaults({ count: 1, hang: true, path: '/individuals' });

		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'individual',
				operation: 'getAll',
				returnAll: true,
				requestOptions: { timeout: 1000 },
			},
		});

		expect(run.error?.message).toBe('The service did not answer within 1 second [item 0]');
	});

	it("without a Timeout set, fails after 30 seconds, not n8n's 300", async () => {
		hangOnce();
		const started = performance.now();

		const run = await runNode({ credentials: credentials(), parameters: firmGet });

		const waited = performance.now() - started;
		expect(run.error?.message).toBe('The service did not answer within 30 seconds [item 0]');
		expect(waited).toBeGreaterThanOrEqual(29_500);
		expect(waited).toBeLessThan(40_000);
	}, 60_000);
});
