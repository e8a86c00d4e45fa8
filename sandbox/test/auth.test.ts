/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import { ClientOAuth2 } from '@n8n/client-oauth2';
import { createPublicKey, verify } from 'node:crypto';

import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import {
	N8N_CALLBACK,
	apiClient,
	authorize,
	controlClient,
	pkcePair,
	send,
	signIn,
	tokenRequest,
} from './helpers';

const claimsOf = (jwt: string) =>
	JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
const basic = (id: string, secret = '') =>
	`Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('authentication (spec §5)', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({ clients: 3, accessTokenTtlSeconds: 600, controls: true });
	});
	afterEach(() => sandbox.close());

	const getFirm = (authorization?: string) =>
		send(`${sandbox.baseUrl}/firm`, {
			headers: {
				'accept-version': '1.0.0',
				...(authorization === undefined ? {} : { authorization }),
			},
		});

	describe('API keys', () => {
		it("let the firm's key read its own firm", async () => {
			const reply = await getFirm(`Bearer ${sandbox.apiKey}`);
			expect(reply.status).toBe(200);
			expect(reply.body.data).toMatchObject({ id: sandbox.firm.id, name: sandbox.firm.name });
			expect((await getFirm(`Bearer ${sandbox.otherFirm.apiKey}`)).body.data.id).toBe(
				sandbox.otherFirm.id,
			);
		});

		it.each([
			['missing', undefined, /Missing credentials/],
			['empty', '', /Missing credentials/],
			['not Bearer', `Token ${'x'.repeat(10)}`, /Malformed Authorization header/],
			['Bearer without a token', 'Bearer', /Malformed Authorization header/],
			['Bearer with two tokens', 'Bearer one two', /Malformed Authorization header/],
			['Basic', basic('user', 'password'), /Malformed Authorization header/],
			['an unknown key', 'Bearer crs_0123456789abcdef', /Unknown API key/],
		])('answer 401 when the credential is %s', async (_what, authorization, message) => {
			const reply = await getFirm(authorization);
			expect(reply.status).toBe(401);
			expect(reply.body.message).toMatch(message);
			expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
			expect(JSON.stringify(reply.body)).not.toContain('0123456789abcdef');
		});

		it('answer 401 once expired, by the service clock', async () => {
			const key = sandbox.createApiKey({
				name: 'CRM sync',
				expiresAt: new Date(Date.now() + 3600_000).toISOString(),
			});
			expect((await getFirm(`Bearer ${key}`)).status).toBe(200);
			sandbox.setClock({ offsetMs: 2 * 3600_000 });
			const reply = await getFirm(`Bearer ${key}`);
			expect(reply.status).toBe(401);
			expect(reply.body.message).toMatch(/This API key \('CRM sync'\) expired at/);
			expect(reply.body.message).not.toContain(key);
		});

		it('answer 401 once revoked', async () => {
			const key = sandbox.createApiKey({ name: 'Old script' });
			expect((await getFirm(`Bearer ${key}`)).status).toBe(200);
			sandbox.revokeApiKey(key);
			const reply = await getFirm(`Bearer ${key}`);
			expect(reply.status).toBe(401);
			expect(reply.body.message).toMatch(/was revoked/);
		});

		it('can be read-only: reads work, writes answer 403', async () => {
			const api = apiClient(sandbox, sandbox.createApiKey({ name: 'Reporting', readOnly: true }));
			const [client] = (await api.get('/clients')).body.data;
			expect(client).toBeDefined();
			const create = await api.post('/clients', {
				status: 'PROSPECT',
				entity: { object: 'individual', firstName: 'A', lastName: 'B' },
			});
			expect(create.status).toBe(403);
			expect(create.body.message).toMatch(/read-only/);
			expect((await api.patch(`/clients/${client.id}`, { status: 'EXISTING' })).status).toBe(403);
			expect((await api.get('/clients')).body.meta.total).toBe(3);
		});

		it('belong to one firm: a key made for the other firm sees only that firm', async () => {
			const key = sandbox.createApiKey({ firmId: sandbox.otherFirm.id, name: 'Other' });
			expect((await getFirm(`Bearer ${key}`)).body.data.id).toBe(sandbox.otherFirm.id);
		});
	});

	describe('OAuth2 access tokens', () => {
		it('are RS256 JWTs for the demo user and firm that the API accepts, verifiable with the published JWKS', async () => {
			const tokens = await signIn(sandbox);
			expect(tokens).toMatchObject({
				token_type: 'Bearer',
				expires_in: 600,
				scope: `openid ${sandbox.apiScope}`,
			});
			const claims = claimsOf(tokens.access_token);
			expect(claims).toMatchObject({
				iss: sandbox.authUrl,
				aud: sandbox.baseUrl,
				firm: sandbox.firm.id,
				scope: `openid ${sandbox.apiScope}`,
			});
			expect(claims.exp - claims.iat).toBe(600);
			const idClaims = claimsOf(tokens.id_token);
			expect(idClaims).toMatchObject({
				iss: sandbox.authUrl,
				aud: sandbox.oauthClientId,
				sub: claims.sub,
				name: expect.any(String),
			});

			const jwks = (await send(`${sandbox.authUrl}/.well-known/jwks.json`)).body;
			const [header, payload, signature] = tokens.access_token.split('.');
			expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({
				alg: 'RS256',
				kid: jwks.keys[0].kid,
			});
			const publicKey = createPublicKey({ key: jwks.keys[0], format: 'jwk' });
			expect(
				verify(
					'sha256',
					Buffer.from(`${header}.${payload}`),
					publicKey,
					Buffer.from(signature, 'base64url'),
				),
			).toBe(true);

			const reply = await getFirm(`Bearer ${tokens.access_token}`);
			expect(reply.status).toBe(200);
			expect(reply.body.data.id).toBe(sandbox.firm.id);
		});

		it('answer 401 once expired, by the service clock', async () => {
			const tokens = await signIn(sandbox);
			sandbox.setClock({ offsetMs: 601_000 });
			const reply = await getFirm(`Bearer ${tokens.access_token}`);
			expect(reply.status).toBe(401);
			expect(reply.body.message).toMatch(/Access token expired/);
		});

		it('answer 401 when tampered with, or issued by another authorization server', async () => {
			const tokens = await signIn(sandbox);
			const [header, , signature] = tokens.access_token.split('.');
			const forged = Buffer.from(
				JSON.stringify({ ...claimsOf(tokens.access_token), firm: sandbox.otherFirm.id }),
			).toString('base64url');
			const elsewhere = await startSandbox();
			try {
				const foreign = await signIn(elsewhere);
				for (const token of [
					`${header}.${forged}.${signature}`,
					foreign.access_token,
					'abc.def.ghi',
				]) {
					const reply = await getFirm(`Bearer ${token}`);
					expect(reply.status).toBe(401);
					expect(reply.body.message).toMatch(/Invalid access token/);
				}
			} finally {
				await elsewhere.close();
			}
		});

		it('answer 403 without the API scope (a token for openid only)', async () => {
			const tokens = await signIn(sandbox, 'openid');
			const reply = await getFirm(`Bearer ${tokens.access_token}`);
			expect(reply.status).toBe(403);
			expect(reply.body.message).toContain(`lacks the scope ${sandbox.apiScope}`);
		});
	});

	describe('authorize (Authorization Code with PKCE S256)', () => {
		it('approves the demo user and redirects to the allow-listed URI with a code and the state', async () => {
			const { challenge } = pkcePair();
			const reply = await authorize(sandbox, challenge);
			expect(reply.status).toBe(302);
			expect(`${reply.location!.origin}${reply.location!.pathname}`).toBe(N8N_CALLBACK);
			expect(reply.location!.searchParams.get('state')).toBe('state-123');
			expect(reply.location!.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
		});

		it.each([
			['an unknown client_id', { client_id: 'someone-else' }, /Unknown client_id/],
			[
				'a redirect_uri that is not allow-listed',
				{ redirect_uri: 'https://attacker.example/callback' },
				/is not allow-listed/,
			],
			['no redirect_uri', { redirect_uri: undefined }, /is not allow-listed/],
		])('shows a 400 page for %s, never redirecting', async (_what, overrides, message) => {
			const reply = await authorize(sandbox, pkcePair().challenge, overrides);
			expect(reply.status).toBe(400);
			expect(reply.location).toBeUndefined();
			expect(reply.headers.get('content-type')).toMatch(/text\/html/);
			expect(reply.body).toMatch(message);
		});

		it.each([
			['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', /only S256/],
			[
				'no code_challenge_method',
				{ code_challenge_method: undefined },
				'invalid_request',
				/PKCE is required/,
			],
			[
				'no code_challenge',
				{ code_challenge: undefined },
				'invalid_request',
				/code_challenge must be/,
			],
			[
				'another response_type',
				{ response_type: 'token' },
				'unsupported_response_type',
				/response_type=code/,
			],
			[
				'the bare scope api:full',
				{ scope: 'openid api:full' },
				'invalid_scope',
				/Unknown scope 'api:full'/,
			],
			['no scope', { scope: undefined }, 'invalid_scope', /scope is required/],
			['a scope without openid', { scope: 'API' }, 'invalid_scope', /Unknown scope/],
		])(
			'refuses %s by redirecting with an error and the state',
			async (_what, overrides, error, description) => {
				const reply = await authorize(sandbox, pkcePair().challenge, overrides);
				expect(reply.status).toBe(302);
				expect(reply.location!.searchParams.get('error')).toBe(error);
				expect(reply.location!.searchParams.get('error_description')).toMatch(description);
				expect(reply.location!.searchParams.get('state')).toBe('state-123');
				expect(reply.location!.searchParams.has('code')).toBe(false);
			},
		);

		it('requires openid among the scopes', async () => {
			const reply = await authorize(sandbox, pkcePair().challenge, { scope: sandbox.apiScope });
			expect(reply.location!.searchParams.get('error_description')).toMatch(
				/The scope openid is required/,
			);
		});
	});

	describe('token endpoint', () => {
		const codeFor = async () => {
			const { verifier, challenge } = pkcePair();
			const { location } = await authorize(sandbox, challenge);
			return { verifier, code: location!.searchParams.get('code')! };
		};
		const redeem = (
			code: string,
			verifier: string | undefined,
			extra: Record<string, string> = {},
		) =>
			tokenRequest(sandbox, {
				grant_type: 'authorization_code',
				code,
				redirect_uri: N8N_CALLBACK,
				client_id: sandbox.oauthClientId,
				...(verifier === undefined ? {} : { code_verifier: verifier }),
				...extra,
			});

		it('refuses a wrong code_verifier with invalid_grant', async () => {
			const { code } = await codeFor();
			const reply = await redeem(code, pkcePair().verifier);
			expect(reply.status).toBe(400);
			expect(reply.body).toEqual({
				error: 'invalid_grant',
				error_description: expect.stringMatching(/code_verifier does not match/),
			});
		});

		it('refuses a missing code_verifier with invalid_request', async () => {
			const { code } = await codeFor();
			expect((await redeem(code, undefined)).body.error).toBe('invalid_request');
		});

		it('redeems a code once only: a reused code gets invalid_grant', async () => {
			const { code, verifier } = await codeFor();
			expect((await redeem(code, verifier)).status).toBe(200);
			const again = await redeem(code, verifier);
			expect(again.status).toBe(400);
			expect(again.body.error).toBe('invalid_grant');
		});

		it('refuses a code older than a minute, by the service clock', async () => {
			const { code, verifier } = await codeFor();
			sandbox.setClock({ offsetMs: 61_000 });
			const reply = await redeem(code, verifier);
			expect(reply.body).toEqual({
				error: 'invalid_grant',
				error_description: expect.stringMatching(/expired/),
			});
		});

		it('refuses another redirect_uri than the one authorized, and unknown codes', async () => {
			const { code, verifier } = await codeFor();
			expect(
				(
					await redeem(code, verifier, {
						redirect_uri: 'http://127.0.0.1:5678/rest/oauth2-credential/callback',
					})
				).body.error,
			).toBe('invalid_grant');
			expect((await redeem('no-such-code', verifier)).body.error).toBe('invalid_grant');
		});

		it('takes the client id as HTTP Basic with an empty secret, and JSON bodies', async () => {
			const first = await codeFor();
			const viaBasic = await tokenRequest(
				sandbox,
				{
					grant_type: 'authorization_code',
					code: first.code,
					redirect_uri: N8N_CALLBACK,
					code_verifier: first.verifier,
				},
				{ authorization: basic(sandbox.oauthClientId) },
			);
			expect(viaBasic.status).toBe(200);
			const second = await codeFor();
			const viaJson = await send(`${sandbox.authUrl}/oauth2/token`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					grant_type: 'authorization_code',
					code: second.code,
					redirect_uri: N8N_CALLBACK,
					code_verifier: second.verifier,
					client_id: sandbox.oauthClientId,
				}),
			});
			expect(viaJson.status).toBe(200);
		});

		it.each<
			[string, Record<string, string | undefined>, { authorization?: string }, number, string]
		>([
			['an unknown client_id', { client_id: 'someone-else' }, {}, 401, 'invalid_client'],
			['no client id at all', { client_id: undefined }, {}, 401, 'invalid_client'],
			[
				'a client secret (the service issues none)',
				{ client_id: undefined },
				{ authorization: 'SECRET' },
				401,
				'invalid_client',
			],
			[
				'different client ids in body and header',
				{},
				{ authorization: basic('other') },
				400,
				'invalid_request',
			],
			['an unsupported grant_type', { grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
		])('refuses %s', async (_what, form, headers, status, error) => {
			const { code, verifier } = await codeFor();
			const body = Object.fromEntries(
				Object.entries({
					grant_type: 'authorization_code',
					code,
					redirect_uri: N8N_CALLBACK,
					code_verifier: verifier,
					client_id: sandbox.oauthClientId,
					...form,
				}).filter((entry): entry is [string, string] => entry[1] !== undefined),
			);
			const authorization =
				headers.authorization === 'SECRET'
					? basic(sandbox.oauthClientId, 's3cret')
					: headers.authorization;
			const reply = await tokenRequest(
				sandbox,
				body,
				authorization === undefined ? {} : { authorization },
			);
			expect(reply.status).toBe(status);
			expect(reply.body.error).toBe(error);
		});

		it('refreshes: a new access token that the API accepts, the refresh token staying valid', async () => {
			const tokens = await signIn(sandbox);
			sandbox.setClock({ offsetMs: 601_000 });
			expect((await getFirm(`Bearer ${tokens.access_token}`)).status).toBe(401);
			const refreshed = await tokenRequest(
				sandbox,
				{ grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
				{ authorization: basic(sandbox.oauthClientId) },
			);
			expect(refreshed.status).toBe(200);
			expect(refreshed.body).toMatchObject({
				token_type: 'Bearer',
				refresh_token: tokens.refresh_token,
				scope: tokens.scope,
			});
			expect((await getFirm(`Bearer ${refreshed.body.access_token}`)).status).toBe(200);
		});

		it('refreshes to a narrower scope only, and refuses unknown refresh tokens', async () => {
			const tokens = await signIn(sandbox);
			const refresh = (form: Record<string, string>) =>
				tokenRequest(sandbox, {
					grant_type: 'refresh_token',
					client_id: sandbox.oauthClientId,
					...form,
				});
			const narrower = await refresh({ refresh_token: tokens.refresh_token, scope: 'openid' });
			expect((await getFirm(`Bearer ${narrower.body.access_token}`)).status).toBe(403);
			expect(
				(
					await refresh({
						refresh_token: tokens.refresh_token,
						scope: `openid ${sandbox.apiScope} admin`,
					})
				).body.error,
			).toBe('invalid_scope');
			expect((await refresh({ refresh_token: 'unknown' })).body.error).toBe('invalid_grant');
		});

		it('refuses every refresh token issued before the grants are revoked; the access token lives on until it expires', async () => {
			const tokens = await signIn(sandbox);
			const refresh = () =>
				tokenRequest(sandbox, {
					grant_type: 'refresh_token',
					client_id: sandbox.oauthClientId,
					refresh_token: tokens.refresh_token,
				});
			expect((await refresh()).status).toBe(200);

			sandbox.revokeOAuthGrants();

			const refused = await refresh();
			expect(refused.status).toBe(400);
			expect(refused.body).toEqual({
				error: 'invalid_grant',
				error_description: 'Access was revoked by the user: connect again',
			});
			expect((await getFirm(`Bearer ${tokens.access_token}`)).status).toBe(200);
			const again = await signIn(sandbox);
			expect(
				(
					await tokenRequest(sandbox, {
						grant_type: 'refresh_token',
						client_id: sandbox.oauthClientId,
						refresh_token: again.refresh_token,
					})
				).status,
			).toBe(200);
		});
	});

	describe('token faults: what the token endpoint answers the next renewals instead of a token', () => {
		afterEach(() => sandbox.clearTokenFaults());

		const renew = (refreshToken: string) =>
			tokenRequest(sandbox, {
				grant_type: 'refresh_token',
				client_id: sandbox.oauthClientId,
				refresh_token: refreshToken,
			});

		it.each([
			[{ error: 'invalid_client' }, 401, 'invalid_client'],
			[{ error: 'temporarily_unavailable' }, 503, 'temporarily_unavailable'],
			[{ error: 'server_error' }, 500, 'server_error'],
			[{ error: 'slow_down' }, 400, 'slow_down'],
			[{ error: 'temporarily_unavailable', status: 400 }, 400, 'temporarily_unavailable'],
		])('%j: an OAuth error with its status', async (fault, status, error) => {
			const tokens = await signIn(sandbox);
			sandbox.injectTokenFaults({ count: 1, ...fault });

			const refused = await renew(tokens.refresh_token);

			expect(refused.status).toBe(status);
			expect(refused.body).toEqual({ error, error_description: expect.stringContaining(error) });
			expect((await renew(tokens.refresh_token)).status).toBe(200);
		});

		it("a gateway's answer (no OAuth error) with Retry-After, over HTTP too; codes are left alone", async () => {
			const tokens = await signIn(sandbox);
			const control = controlClient(sandbox);
			expect(
				(await control('POST', '/oauth2/faults', { count: 2, status: 429, retryAfterSeconds: 30 }))
					.status,
			).toBe(204);
			expect(await signIn(sandbox)).toMatchObject({ token_type: 'Bearer' }); // a code redeemed

			const refused = await renew(tokens.refresh_token);

			expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '30']);
			expect(refused.body).toEqual({ message: expect.stringContaining('unavailable') });
			expect((await control('DELETE', '/oauth2/faults')).status).toBe(204);
			expect((await renew(tokens.refresh_token)).status).toBe(200);
		});

		it("drop: closes the connection without an answer; accessToken: only that grant's renewals", async () => {
			const mine = await signIn(sandbox);
			const theirs = await signIn(sandbox);
			sandbox.injectTokenFaults({ count: 1, drop: true, accessToken: mine.access_token });

			expect((await renew(theirs.refresh_token)).status).toBe(200);
			await expect(renew(mine.refresh_token)).rejects.toThrow();
			expect((await renew(mine.refresh_token)).status).toBe(200);
		});

		it.each([
			[{ count: 0 }, /count must be a whole number of renewals/],
			[{ count: 1, status: 200 }, /status must be from 400 to 599/],
			[{ count: 1, drop: true, error: 'slow_down' }, /drop answers nothing/],
			[
				{ count: 1, accessToken: 'not-issued' },
				/accessToken must be an access token this server issued/,
			],
		])('refuses %j', (fault, message) => {
			expect(() => sandbox.injectTokenFaults(fault)).toThrow(message);
		});
	});

	it("works with n8n's own OAuth2 client, as n8n's PKCE credential flow and refresh use it", async () => {
		const { verifier, challenge } = pkcePair();
		const client = new ClientOAuth2({
			clientId: sandbox.oauthClientId,
			clientSecret: '',
			accessTokenUri: `${sandbox.authUrl}/oauth2/token`,
			authorizationUri: `${sandbox.authUrl}/oauth2/authorize`,
			redirectUri: N8N_CALLBACK,
			scopes: [`openid ${sandbox.apiScope}`],
			authentication: 'header',
		});
		const uri = client.code.getUri({
			state: 'n8n-state',
			query: { code_challenge: challenge, code_challenge_method: 'S256' },
		});
		const redirect = (await fetch(uri, { redirect: 'manual' })).headers.get('location')!;
		const token = await client.code.getToken(redirect, { body: { code_verifier: verifier } });
		expect((await getFirm(`Bearer ${token.accessToken}`)).status).toBe(200);
		const refreshed = await token.refresh();
		expect((await getFirm(`Bearer ${refreshed.accessToken}`)).status).toBe(200);
	});

	it('publishes its OpenID configuration', async () => {
		const configuration = (await send(`${sandbox.authUrl}/.well-known/openid-configuration`)).body;
		expect(configuration).toMatchObject({
			issuer: sandbox.authUrl,
			authorization_endpoint: `${sandbox.authUrl}/oauth2/authorize`,
			token_endpoint: `${sandbox.authUrl}/oauth2/token`,
			jwks_uri: `${sandbox.authUrl}/.well-known/jwks.json`,
			scopes_supported: ['openid', sandbox.apiScope],
			code_challenge_methods_supported: ['S256'],
		});
	});
});
