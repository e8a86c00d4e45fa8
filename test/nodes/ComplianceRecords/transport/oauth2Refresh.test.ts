/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets --
   development tooling: runs in Node, not in n8n; OAUTH2 is a credential type's name, not a secret */
import { ClientOAuth2 } from '@n8n/client-oauth2';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { requestError } from '../../../../nodes/ComplianceRecords/transport/errors';
import { connectOAuth2, loadOptions, runNode, type CredentialStore } from '../../../helpers';
import { serviceSaid, useSandbox } from '../../../helpers/sandbox';
import { serviceGet } from '../../../helpers/serviceApi';
import { createTriggerPoller } from '../../../helpers/trigger';

/*
 * An OAuth2 access token that expired is refreshed by n8n and the request sent again, on every
 * path of the package: the action node's operations (n8n's declarative routing), the
 * dropdowns and the trigger (transport/request.ts). The package never asks n8n to return a 401:
 * n8n refreshes only when a request throws with 401, whatever its version.
 */

const TOKEN_TTL_SECONDS = 60;
const { sandbox, credentials } = useSandbox({
	clients: 260,
	accessTokenTtlSeconds: TOKEN_TTL_SECONDS,
});
const OAUTH2 = 'complianceRecordsOAuth2Api';

afterEach(() => sandbox().setClock({ offsetMs: 0 }));

/** A connected OAuth2 credential whose access token has just expired (service clock moved past it). */
async function expiredConnection(): Promise<{ store: CredentialStore; expiredToken: string }> {
	const store = credentials();
	const { tokenData } = await connectOAuth2(store);
	sandbox().setClock({ offsetMs: (TOKEN_TTL_SECONDS + 1) * 1000 });
	sandbox().clearRequests();
	return { store, expiredToken: String(tokenData.access_token) };
}

/** Which token each request carried, and what it was answered. */
function tokensAndStatuses(store: CredentialStore, expiredToken: string) {
	const refreshed = (store.stored(OAUTH2).oauthTokenData as IDataObject).access_token;
	return sandbox()
		.requests()
		.map((request) => {
			const token = String(request.headers.authorization).replace(/^Bearer /, '');
			return [
				token === expiredToken ? 'expired' : token === refreshed ? 'refreshed' : 'other',
				request.status,
			];
		});
}

const createClient: INodeParameters = {
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: 'Lovelace',
};

const oAuth2 = (parameters: INodeParameters): INodeParameters => ({
	authentication: 'oAuth2',
	...parameters,
});

describe('An expired OAuth2 access token is refreshed once, saved, and the request sent again', () => {
	it('Client → Create: the same request body, one client created', async () => {
		const { store, expiredToken } = await expiredConnection();
		const changesBefore = sandbox().changes().length;

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({
				resource: 'client',
				operation: 'create',
				status: 'PROSPECT',
				entityType: 'individual',
				firstName: 'Grace',
				lastName: 'Hopper',
			}),
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expect.objectContaining({ name: 'Grace Hopper' })]);
		expect(store.savedTokens).toHaveLength(1);
		expect(tokensAndStatuses(store, expiredToken)).toEqual([
			['expired', 401],
			['refreshed', 201],
		]);
		const [refused, created] = sandbox().requests();
		expect(created.body).toEqual(refused.body);
		expect(sandbox().changes().slice(changesBefore)).toEqual([
			expect.objectContaining({ cause: 'created' }),
		]);
	});

	it('Client → Get Many across pages: only the first page is refused, every page is read once', async () => {
		const { meta } = await serviceGet<{ meta: { total: number } }>(sandbox(), '/clients?limit=1');
		const { store, expiredToken } = await expiredConnection();

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'client', operation: 'getAll', returnAll: true }),
		});

		expect(run.error).toBeUndefined();
		expect(new Set(run.json.map((client) => client.id)).size).toBe(meta.total);
		expect(store.savedTokens).toHaveLength(1);
		expect(tokensAndStatuses(store, expiredToken)).toEqual([
			['expired', 401],
			['refreshed', 200],
			['refreshed', 200],
		]);
		const pages = sandbox()
			.requests()
			.map((request) => request.query.cursor);
		expect(pages[0]).toBeUndefined();
		expect(pages[1]).toBeUndefined();
		expect(pages[2]).toEqual(expect.any(String));
	});

	it('a dropdown (Partner)', async () => {
		const { store, expiredToken } = await expiredConnection();

		const options = await loadOptions('getPartners', {
			credentials: store,
			parameters: oAuth2({ resource: 'client', operation: 'create' }),
		});

		expect(options.length).toBeGreaterThan(0);
		expect(store.savedTokens).toHaveLength(1);
		expect(tokensAndStatuses(store, expiredToken)).toEqual([
			['expired', 401],
			['refreshed', 200],
		]);
	});

	it("the trigger's poll", async () => {
		const { store, expiredToken } = await expiredConnection();
		const poller = createTriggerPoller({
			parameters: oAuth2({ event: 'clientModified' }),
			credentials: store,
		});

		expect(await poller.poll()).toEqual([]);

		// The first poll asks the service its time, then lists: every request after the refresh
		// carries the new token.
		expect(store.savedTokens).toHaveLength(1);
		const requests = tokensAndStatuses(store, expiredToken);
		expect(requests.length).toBeGreaterThan(1);
		expect(requests).toEqual([
			['expired', 401],
			...requests.slice(1).map(() => ['refreshed', 200]),
		]);
		expect(poller.saved()).not.toEqual({});
	});
});

describe('A refused refresh (the user revoked the access) asks to reconnect the credential', () => {
	const reconnect = 'The credential "Test Compliance Records OAuth2 API" needs to be reconnected.';

	async function revokedConnection() {
		const connection = await expiredConnection();
		sandbox().revokeOAuthGrants();
		return connection;
	}

	it('in the action node', async () => {
		const { store, expiredToken } = await revokedConnection();

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'firm', operation: 'get' }),
		});

		expect(run.error?.message).toBe(reconnect);
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual([401]);
		expect(JSON.stringify(run.error)).not.toContain(expiredToken);
	});

	it('in a dropdown', async () => {
		const { store } = await revokedConnection();

		await expect(
			loadOptions('getServices', {
				credentials: store,
				parameters: oAuth2({ resource: 'client', operation: 'create' }),
			}),
		).rejects.toThrow(reconnect);
	});

	it('in the trigger', async () => {
		const { store } = await revokedConnection();
		const poller = createTriggerPoller({
			parameters: oAuth2({ event: 'clientModified' }),
			credentials: store,
		});

		await expect(poller.poll()).rejects.toThrow(reconnect);
	});

	it("the OAuth2 client's refusal of a revoked grant, wrapped as n8n wraps it, asks to reconnect", async () => {
		const store = credentials();
		const { tokenData } = await connectOAuth2(store);
		sandbox().revokeOAuthGrants();
		const oauth = store.withDefaults(OAUTH2, store.stored(OAUTH2));
		const client = new ClientOAuth2({
			clientId: String(oauth.clientId),
			accessTokenUri: String(oauth.accessTokenUrl),
		});
		const node = {
			id: 'n',
			name: 'Compliance Records',
			type: 't',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		};
		// n8n refreshes with this client and wraps what it throws: new NodeApiError(node, error).
		const refusal = await client
			.createToken(tokenData as never)
			.refresh()
			.catch((error: Error) => new NodeApiError(node, error as never));

		const error = requestError(node, refusal, {
			authentication: 'oAuth2',
			secrets: [String(tokenData.refresh_token)],
		});

		expect(error.message).toBe('The service refused the OAuth2 connection');
		// The server's own words, with the code n8n's client kept.
		const { body } = (refusal as NodeApiError).cause as unknown as {
			body: { error: string; error_description: string };
		};
		expect(error.description).toBe(
			`The authorization server said: ${body.error_description} (${body.error}). Access could not be renewed. Open the 'Compliance Records OAuth2 API' credential and reconnect it.`,
		);
		expect(error.description).not.toContain(String(tokenData.refresh_token));
		expect((error as NodeApiError).failure).toEqual({ cause: 'credential-invalid' });
	});
});

describe('A renewal the authorization server refuses or cannot serve: only a dead credential asks to reconnect', () => {
	afterEach(() => sandbox().clearTokenFaults());

	const reconnect = "Open the 'Compliance Records OAuth2 API' credential and reconnect it.";
	const later =
		"It is unavailable for a moment. Try again in a few minutes, or turn on 'Retry On Fail' in the node's settings.";
	const said = (code: string) =>
		`The authorization server said: The authorization server refused the renewal (${code}, a fault injected by the sandbox).`;

	it.each([
		{
			answer: 'invalid_client (401)',
			fault: { error: 'invalid_client' },
			message: 'The service refused the OAuth2 connection [item 0]',
			description: `${said('invalid_client')} Access could not be renewed. ${reconnect}`,
			failure: { cause: 'credential-invalid' },
		},
		{
			answer: 'unauthorized_client (400)',
			fault: { error: 'unauthorized_client' },
			message: 'The service refused the OAuth2 connection [item 0]',
			description: `${said('unauthorized_client')} Access could not be renewed. ${reconnect}`,
			failure: { cause: 'credential-invalid' },
		},
		{
			answer: 'temporarily_unavailable (400)',
			fault: { error: 'temporarily_unavailable', status: 400 },
			message: 'The authorization server could not renew access [item 0]',
			description: `${said('temporarily_unavailable')} ${later}`,
			failure: { cause: 'temporarily-unavailable' },
		},
		{
			answer: 'server_error (500)',
			fault: { error: 'server_error' },
			message: 'The authorization server could not renew access [item 0]',
			description: `${said('server_error')} ${later}`,
			failure: { cause: 'temporarily-unavailable' },
		},
		{
			answer: 'a gateway page (502) asking 90 seconds',
			fault: { status: 502, retryAfterSeconds: 90 },
			message: 'The authorization server could not renew access [item 0]',
			description: `The authorization server said: The authorization server is unavailable (a fault injected by the sandbox). It asked to wait 90 seconds before the next request; the node waits at most 60 seconds. ${later}`,
			failure: { cause: 'temporarily-unavailable', retryAfterMs: 90_000 },
		},
		{
			answer: 'slow_down (400)',
			fault: { error: 'slow_down' },
			message: 'The authorization server is receiving too many requests [item 0]',
			description: `${said('slow_down')} Wait a few minutes and run the node again, or space the requests out with 'Batching' under 'Request Options' in the node's settings.`,
			failure: { cause: 'rate-limited' },
		},
		{
			answer: 'invalid_scope (400): no cause proven',
			fault: { error: 'invalid_scope' },
			message: 'The authorization server refused to renew access [item 0]',
			description: `${said('invalid_scope')} Open the 'Compliance Records OAuth2 API' credential, check its 'Authorization Server URL', and reconnect it.`,
			failure: undefined,
		},
	])('$answer', async ({ fault, message, description, failure }) => {
		const { store } = await expiredConnection();
		sandbox().injectTokenFaults({ count: 1, ...fault });

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'firm', operation: 'get' }),
		});

		expect(run.error?.message).toBe(message);
		expect(run.error?.description).toBe(description);
		expect((run.error as { failure?: unknown }).failure).toEqual(failure);
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual([401]);
		expect(store.savedTokens).toHaveLength(0);
	});

	it('no answer at all (the connection closed): a Create is not said to have acted, only to wait', async () => {
		const { store } = await expiredConnection();
		sandbox().injectTokenFaults({ count: 1, drop: true });

		const run = await runNode({ credentials: store, parameters: oAuth2(createClient) });

		expect(run.error?.message).toBe('The authorization server could not renew access [item 0]');
		expect(run.error?.description).toMatch(
			new RegExp(`^The authorization server said: .+ ${later.replace(/[.'()]/g, '\\$&')}$`),
		);
		expect((run.error as { failure?: unknown }).failure).toEqual({
			cause: 'temporarily-unavailable',
		});
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual([401]);
	});

	it('a 429 without an OAuth error is waited out and tried again, then told as a rate limit', async () => {
		const { store } = await expiredConnection();
		sandbox().injectTokenFaults({ count: 5, status: 429 });

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'firm', operation: 'get' }),
		});

		expect(run.error?.message).toBe(
			'The authorization server is receiving too many requests [item 0]',
		);
		expect(run.error?.description).toContain(
			'The node sent the request 5 times, waiting between tries, and none went through. Wait a few minutes',
		);
		expect((run.error as { failure?: unknown }).failure).toEqual({ cause: 'rate-limited' });
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual(Array(5).fill(401));
	});
});

describe('Other errors of the service, through OAuth2, say what the service said', () => {
	async function connected() {
		const store = credentials();
		await connectOAuth2(store);
		sandbox().clearRequests();
		return store;
	}

	it('400 on Client → Create', async () => {
		const run = await runNode({
			credentials: await connected(),
			parameters: oAuth2({ ...createClient, additionalFields: { partnerId: 'no-such-partner' } }),
		});

		expect(sandbox().requests()).toHaveLength(1);
		expect(run.error?.message).toBe('The service refused the request [item 0]');
		expect(run.error?.description).toContain(serviceSaid(sandbox()));
	});

	it('429 with Retry-After: sent again after the wait, in the action node and the trigger (n8n throws the answer)', async () => {
		const store = await connected();
		sandbox().injectFaults({ count: 2, status: 429, retryAfterSeconds: 1 });

		const [run] = await Promise.all([
			runNode({ credentials: store, parameters: oAuth2({ resource: 'firm', operation: 'get' }) }),
			createTriggerPoller({
				parameters: oAuth2({ event: 'clientModified' }),
				credentials: store,
			}).poll(),
		]);

		expect(run.error).toBeUndefined();
		const statuses = sandbox()
			.requests()
			.map((request) => request.status);
		expect(statuses.filter((status) => status === 429)).toHaveLength(2);
		expect(statuses.filter((status) => status !== 429).every((status) => status === 200)).toBe(
			true,
		);
	});

	it("429 asking a longer wait than the node's: fails at once, with how long it asked and n8n's cause", async () => {
		const store = await connected();
		sandbox().injectFaults({ count: 1, status: 429, retryAfterSeconds: 3600 });

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'firm', operation: 'get' }),
		});

		expect(run.error?.message).toBe('The service is receiving too many requests [item 0]');
		expect(run.error?.description).toContain(
			'It asked to wait 60 minutes before the next request; the node waits at most 60 seconds.',
		);
		expect((run.error as { failure?: unknown }).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 3_600_000,
		});
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('500 on Get Many', async () => {
		const store = await connected();
		sandbox().injectFaults({ count: 1, status: 500, path: '/clients' });

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'client', operation: 'getAll', returnAll: true }),
		});

		expect(run.error?.message).toBe(
			'The service could not complete the request (HTTP 500) [item 0]',
		);
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('Continue On Fail: one error item per failed input item', async () => {
		const store = await connected();

		const run = await runNode({
			credentials: store,
			parameters: oAuth2({ resource: 'client', operation: 'get', clientId: '={{ $json.id }}' }),
			input: [{ id: 'missing-1' }, { id: 'missing-2' }],
			continueOnFail: true,
		});

		expect(run.items.map((item) => item.error?.message)).toEqual([
			'Client "missing-1" was not found [item 0]',
			'Client "missing-2" was not found [item 1]',
		]);
		expect(run.items.map((item) => item.error?.description)).toEqual([
			expect.stringContaining(serviceSaid(sandbox(), 0)),
			expect.stringContaining(serviceSaid(sandbox(), 1)),
		]);
	});
});
