/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- OAUTH2 is a credential type's name, not a secret */
import { ComplianceRecordsOAuth2Api } from '../../credentials/ComplianceRecordsOAuth2Api.credentials';
import {
	connectOAuth2,
	CredentialStore,
	credentialsFor,
	N8N_CALLBACK_URL,
	runNode,
} from '../helpers';
import { expectReceived, useSandbox } from '../helpers/sandbox';

const { sandbox } = useSandbox({ apiPath: '/v1', accessTokenTtlSeconds: 600 });

const OAUTH2 = 'complianceRecordsOAuth2Api';
const firmGet = { authentication: 'oAuth2', resource: 'firm', operation: 'get' };

describe('Compliance Records OAuth2 API credential', () => {
	afterEach(() => sandbox().setClock({ offsetMs: 0 }));

	it('extends oAuth2Api with PKCE, its URLs and scope computed from the two URLs the user enters', () => {
		const credentialType = new ComplianceRecordsOAuth2Api();
		const store = new CredentialStore({
			[OAUTH2]: {
				baseUrl: 'https://api.example.com/v1/ ',
				authServerUrl: ' https://auth.example.com//',
				clientId: 'my-client',
			},
		});

		expect(credentialType.extends).toEqual(['oAuth2Api']);
		expect(
			credentialType.properties
				.filter((property) => property.type !== 'hidden')
				.map((property) => property.name),
		).toEqual(['baseUrl', 'authServerUrl']);
		expect(store.withDefaults(OAUTH2, store.stored(OAUTH2))).toMatchObject({
			grantType: 'pkce',
			authUrl: 'https://auth.example.com/oauth2/authorize',
			accessTokenUrl: 'https://auth.example.com/oauth2/token',
			scope: 'openid https://api.example.com/v1/api:full',
			clientSecret: '',
			authentication: 'header',
		});
	});

	it("connects with n8n's OAuth2 client (PKCE, S256), then the node calls the API with the token", async () => {
		const store = credentialsFor(sandbox());

		const { authorizeUrl, tokenData } = await connectOAuth2(store);

		expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(
			`${sandbox().authUrl}/oauth2/authorize`,
		);
		const query = Object.fromEntries(authorizeUrl.searchParams);
		expect(query).toEqual({
			client_id: sandbox().oauthClientId,
			redirect_uri: N8N_CALLBACK_URL,
			response_type: 'code',
			scope: `openid ${sandbox().baseUrl}/api:full`,
			state: expect.any(String),
			code_challenge: expect.stringMatching(/^[\w-]{43}$/),
			code_challenge_method: 'S256',
		});
		expect(tokenData).toMatchObject({
			access_token: expect.any(String),
			refresh_token: expect.any(String),
		});
		expect(String(tokenData.token_type).toLowerCase()).toBe('bearer');

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ object: 'firm', id: sandbox().firm.id });
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/firm',
			bearer: String(tokenData.access_token),
		});
	});

	it('refreshes an expired access token once, saves it, and retries the request', async () => {
		const store = credentialsFor(sandbox());
		const { tokenData } = await connectOAuth2(store);
		sandbox().setClock({ offsetMs: 3_600_000 });

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ object: 'firm' });
		expect(store.savedTokens).toHaveLength(1);
		const refreshed = store.savedTokens[0];
		expect(refreshed.access_token).not.toBe(tokenData.access_token);
		expect(store.stored(OAUTH2).oauthTokenData).toEqual(refreshed);
		const requests = sandbox().requests();
		expect(requests.map((request) => [request.headers.authorization, request.status])).toEqual([
			[`Bearer ${String(tokenData.access_token)}`, 401],
			[`Bearer ${String(refreshed.access_token)}`, 200],
		]);

		// The saved token serves the next execution without another refresh.
		sandbox().clearRequests();
		await runNode({ credentials: store, parameters: firmGet });
		expect(store.savedTokens).toHaveLength(1);
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual([200]);
	});

	it('asks to reconnect when the refresh token is no longer accepted', async () => {
		const store = credentialsFor(sandbox());
		const { tokenData } = await connectOAuth2(store);
		store.set(OAUTH2, {
			...store.stored(OAUTH2),
			oauthTokenData: { ...tokenData, refresh_token: 'not-a-refresh-token' },
		});
		sandbox().setClock({ offsetMs: 3_600_000 });

		const run = await runNode({ credentials: store, parameters: firmGet });

		expect(run.error?.message).toBe(
			'The credential "Test Compliance Records OAuth2 API" needs to be reconnected.',
		);
		expect(JSON.stringify(run.error)).not.toContain(String(tokenData.access_token));
	});
});
