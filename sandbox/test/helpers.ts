/** What the sandbox tests share: a client of the API over real HTTP, and the OAuth2 steps. */
import { createHash, randomBytes } from 'node:crypto';

import type { Sandbox } from '../src';

export interface Reply {
	status: number;
	headers: Headers;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
	body: any;
}

/** Sends a request and reads the reply, JSON when it is JSON. */
export async function send(url: string, init: RequestInit = {}): Promise<Reply> {
	return reply(await fetch(url, init));
}

async function reply(response: Response): Promise<Reply> {
	const text = await response.text();
	let body: unknown = text;
	try {
		body = text ? JSON.parse(text) : undefined;
	} catch {
		// not JSON (the authorization server's error page): keep the text
	}
	return { status: response.status, headers: response.headers, body };
}

/** Calls the sandbox's test controls over HTTP (its routes under `/__sandbox`), a JSON body when given. */
export function controlClient(sandbox: Sandbox) {
	const controls = `${new URL(sandbox.baseUrl).origin}/__sandbox`;
	return (method: string, path: string, body?: unknown) =>
		send(`${controls}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
}

/** Calls the API as a client would: accept-version and a bearer credential on every request. */
export function apiClient(sandbox: Sandbox, credential: string = sandbox.apiKey) {
	const request = async (
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
	) =>
		reply(
			await fetch(`${sandbox.baseUrl}${path}`, {
				method,
				headers: {
					'accept-version': '1.0.0',
					authorization: `Bearer ${credential}`,
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
					...headers,
				},
				body: body === undefined ? undefined : JSON.stringify(body),
			}),
		);
	return {
		request,
		get: (path: string, headers?: Record<string, string>) =>
			request('GET', path, undefined, headers),
		post: (path: string, body: unknown) => request('POST', path, body),
		patch: (path: string, body: unknown) => request('PATCH', path, body),
	};
}

export type ApiClient = ReturnType<typeof apiClient>;

/** Every item of a list, following next_cursor (URL-encoded) until a page comes back empty. */
export async function listAll(api: ApiClient, path: string, limit = 200) {
	const items = [];
	const separator = path.includes('?') ? '&' : '?';
	let cursor: string | undefined;
	let pages = 0;
	do {
		const page = await api.get(
			`${path}${separator}limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
		);
		expect(page.status).toBe(200);
		items.push(...page.body.data);
		cursor = page.body.meta.next_cursor;
		pages++;
	} while (cursor !== undefined);
	return { items, pages };
}

/** A client to create: the smallest valid body, overridable. */
export const newIndividualClient = (overrides: Record<string, unknown> = {}) => ({
	status: 'PROSPECT',
	entity: { object: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
	...overrides,
});

export function pkcePair() {
	const verifier = randomBytes(32).toString('base64url');
	return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const N8N_CALLBACK = 'http://localhost:5678/rest/oauth2-credential/callback';

/** GET /oauth2/authorize with the usual parameters, any of them replaced or (undefined) left out. */
export async function authorize(
	sandbox: Sandbox,
	challenge: string,
	overrides: Record<string, string | undefined> = {},
) {
	const params = {
		response_type: 'code',
		client_id: sandbox.oauthClientId,
		redirect_uri: N8N_CALLBACK,
		scope: `openid ${sandbox.apiScope}`,
		state: 'state-123',
		code_challenge: challenge,
		code_challenge_method: 'S256',
		...overrides,
	};
	const query = new URLSearchParams(
		Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
	);
	const response = await fetch(`${sandbox.authUrl}/oauth2/authorize?${query}`, {
		redirect: 'manual',
	});
	const location = response.headers.get('location');
	return {
		...(await reply(response)),
		location: location === null ? undefined : new URL(location),
	};
}

/** POST /oauth2/token as n8n sends it: a form, the client id in the body unless given otherwise. */
export async function tokenRequest(
	sandbox: Sandbox,
	form: Record<string, string>,
	headers: Record<string, string> = {},
) {
	return reply(
		await fetch(`${sandbox.authUrl}/oauth2/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
			body: new URLSearchParams(form),
		}),
	);
}

/** The whole Authorization Code + PKCE flow; returns the token response. */
export async function signIn(sandbox: Sandbox, scope = `openid ${sandbox.apiScope}`) {
	const { verifier, challenge } = pkcePair();
	const { location } = await authorize(sandbox, challenge, { scope });
	const tokens = await tokenRequest(sandbox, {
		grant_type: 'authorization_code',
		code: location!.searchParams.get('code')!,
		redirect_uri: N8N_CALLBACK,
		code_verifier: verifier,
		client_id: sandbox.oauthClientId,
	});
	expect(tokens.status).toBe(200);
	return tokens.body as {
		access_token: string;
		refresh_token: string;
		id_token: string;
		expires_in: number;
		scope: string;
	};
}
