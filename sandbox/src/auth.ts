/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * Authentication (spec §5): firm API keys, and an OAuth 2.0 authorization server issuing
 * OpenID Connect JWTs (Authorization Code with PKCE S256 only). The API accepts either as
 * `Authorization: Bearer ...` and tells them apart itself: access tokens are JWTs, keys are not.
 */
import type { KeyObject } from 'node:crypto';
import {
	createHash,
	generateKeyPair,
	randomBytes,
	sign,
	timingSafeEqual,
	verify,
} from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';

import type { Clock } from './clock';
import { HttpError, readBody, sendJson } from './http';

/** Who is calling the API: the firm whose data they see, and whether they may write. */
export interface Caller {
	firmId: string;
	readOnly: boolean;
}

export interface ApiKeyOptions {
	/** Defaults to the main firm. */
	firmId?: string;
	name: string;
	/** A date-time after which the key answers 401. */
	expiresAt?: string;
	/** Read-only keys get 403 on writes. */
	readOnly?: boolean;
}

interface ApiKey {
	firmId: string;
	name: string;
	expiresAtMs?: number;
	readOnly: boolean;
	revokedAt?: string;
}

const unauthorized = (message: string) =>
	new HttpError(401, message, {
		headers: { 'www-authenticate': 'Bearer realm="compliance-records"' },
	});

/** API keys, as the service's web application issues them under the firm's API services. */
export class ApiKeys {
	private readonly keys = new Map<string, ApiKey>();

	constructor(
		private readonly clock: Clock,
		private readonly defaultFirmId: string,
		private readonly firmExists: (firmId: string) => boolean,
	) {}

	/** Registers a key with a known value (the demo keys). */
	add(key: string, options: ApiKeyOptions): void {
		const firmId = options.firmId ?? this.defaultFirmId;
		if (!this.firmExists(firmId)) throw new RangeError(`No firm ${firmId}`);
		if (typeof options.name !== 'string' || options.name.trim() === '')
			throw new RangeError('An API key needs a name');
		let expiresAtMs: number | undefined;
		if (options.expiresAt !== undefined) {
			expiresAtMs = Date.parse(options.expiresAt);
			if (Number.isNaN(expiresAtMs)) throw new RangeError('expiresAt must be a date-time string');
		}
		this.keys.set(key, {
			firmId,
			name: options.name,
			expiresAtMs,
			readOnly: options.readOnly === true,
		});
	}

	create(options: ApiKeyOptions): string {
		const key = `crs_${randomBytes(24).toString('hex')}`;
		this.add(key, options);
		return key;
	}

	revoke(key: string): void {
		const found = this.keys.get(key);
		if (!found) throw new RangeError('Unknown API key');
		found.revokedAt ??= this.clock.now();
	}

	/** The caller behind a key, or 401 saying why not (never repeating the key). */
	check(key: string): Caller {
		const found = this.keys.get(key);
		if (!found) {
			throw unauthorized(
				"Unknown API key: check the key, or generate one in the firm's settings under API services",
			);
		}
		if (found.revokedAt)
			throw unauthorized(
				`This API key ('${found.name}') was revoked at ${found.revokedAt}: generate a new one`,
			);
		if (found.expiresAtMs !== undefined && found.expiresAtMs <= this.clock.nowMs()) {
			throw unauthorized(
				`This API key ('${found.name}') expired at ${new Date(found.expiresAtMs).toISOString()}: generate a new one`,
			);
		}
		return { firmId: found.firmId, readOnly: found.readOnly };
	}
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

let keyPairPromise: Promise<{ publicKey: KeyObject; privateKey: KeyObject }> | undefined;

/**
 * One RSA key pair per process: generating one costs about 100 ms, and tokens stay bound to
 * their sandbox anyway by their issuer and audience.
 */
function signingKeys() {
	keyPairPromise ??= promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
	return keyPairPromise;
}

/** RS256 JSON Web Tokens signed by this sandbox's authorization server. */
export class Jwt {
	static readonly keyId = 'compliance-records-sandbox';

	private constructor(
		private readonly publicKey: KeyObject,
		private readonly privateKey: KeyObject,
	) {}

	static async create(): Promise<Jwt> {
		const { publicKey, privateKey } = await signingKeys();
		return new Jwt(publicKey, privateKey);
	}

	sign(claims: Record<string, unknown>): string {
		const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: Jwt.keyId }));
		const payload = base64url(JSON.stringify(claims));
		const signature = sign('sha256', Buffer.from(`${header}.${payload}`), this.privateKey);
		return `${header}.${payload}.${base64url(signature)}`;
	}

	/** The claims of a token this server signed, or undefined (bad format or signature). */
	verify(token: string): Record<string, unknown> | undefined {
		const [header, payload, signature] = token.split('.');
		try {
			const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
			if (alg !== 'RS256' || kid !== Jwt.keyId) return undefined;
			const valid = verify(
				'sha256',
				Buffer.from(`${header}.${payload}`),
				this.publicKey,
				Buffer.from(signature, 'base64url'),
			);
			return valid ? JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) : undefined;
		} catch {
			return undefined;
		}
	}

	jwks() {
		return {
			keys: [
				{ ...this.publicKey.export({ format: 'jwk' }), kid: Jwt.keyId, alg: 'RS256', use: 'sig' },
			],
		};
	}
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Turns an Authorization header into a Caller, or a 401/403 the API answers. */
export class Authenticator {
	constructor(
		private readonly keys: ApiKeys,
		private readonly jwt: Jwt,
		private readonly clock: Clock,
		private readonly expected: { issuer: string; audience: string; apiScope: string },
		private readonly firmExists: (firmId: string) => boolean,
	) {}

	authenticate(authorization: string | undefined): Caller {
		if (authorization === undefined || authorization.trim() === '') {
			throw unauthorized(
				'Missing credentials: send the header Authorization: Bearer <API key or access token>',
			);
		}
		const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
		if (!match)
			throw unauthorized(
				"Malformed Authorization header: expected 'Bearer <API key or access token>'",
			);
		const token = match[1];
		return JWT_SHAPE.test(token) ? this.checkAccessToken(token) : this.keys.check(token);
	}

	private checkAccessToken(token: string): Caller {
		const claims = this.jwt.verify(token);
		if (!claims)
			throw unauthorized(
				"Invalid access token: it was not signed by this service's authorization server",
			);
		const { issuer, audience, apiScope } = this.expected;
		if (claims.iss !== issuer || claims.aud !== audience) {
			throw unauthorized(
				'Invalid access token: it was issued for another service (issuer or audience differ)',
			);
		}
		if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.clock.nowMs()) {
			throw unauthorized('Access token expired: refresh it, or connect the credential again');
		}
		if (typeof claims.firm !== 'string' || !this.firmExists(claims.firm)) {
			throw unauthorized('Invalid access token: its firm does not exist');
		}
		const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
		if (!scopes.includes(apiScope)) {
			throw new HttpError(
				403,
				`The access token lacks the scope ${apiScope}: request the scopes 'openid ${apiScope}'`,
				{
					headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${apiScope}"` },
				},
			);
		}
		return { firmId: claims.firm, readOnly: false };
	}
}

export interface AuthorizationServerOptions {
	issuer: string;
	audience: string;
	apiScope: string;
	clientId: string;
	redirectUris: readonly string[];
	accessTokenTtlSeconds: number;
	user: { id: string; name: string; email: string; firmId: string };
}

interface AuthorizationCode {
	clientId: string;
	redirectUri: string;
	scope: string;
	codeChallenge: string;
	nonce?: string;
	expiresAtMs: number;
}

interface Grant {
	clientId: string;
	scope: string;
}

/**
 * What the token endpoint answers the next renewals (`grant_type=refresh_token`) instead of a
 * token: a brief refusal or a dead credential, as authorization servers answer them.
 */
export interface TokenFaultOptions {
	/** How many renewals it answers. */
	count: number;
	/** The OAuth error code answered (`{ error, error_description }`); none: a gateway's answer, not OAuth's. */
	error?: string;
	/** The status: by default 401 for invalid_client, 500 for server_error, 503 for temporarily_unavailable or no error, else 400. */
	status?: number;
	/** Sent as Retry-After. */
	retryAfterSeconds?: number;
	/** Read the request, then close the connection without an answer (no error or status). */
	drop?: boolean;
	/** Only renewals of the grant that issued this access token. */
	accessToken?: string;
}

const TOKEN_FAULT_STATUS: Record<string, number> = {
	invalid_client: 401,
	server_error: 500,
	temporarily_unavailable: 503,
};

/** What a status written by the handler means when the connection was closed without one. */
const DROPPED = 0;

/** Authorization codes live one minute (service clock) and are redeemed at most once. */
const CODE_TTL_MS = 60_000;

/** An OAuth2 error of the token endpoint (RFC 6749 §5.2). */
class OAuthError extends Error {
	constructor(
		readonly error: string,
		message: string,
		readonly status = 400,
	) {
		super(message);
	}
}

/**
 * The OAuth 2.0 / OpenID Connect authorization server. The authorize step approves the demo
 * user at once (no login page); the tokens act for that user's firm.
 */
export class AuthorizationServer {
	private readonly codes = new Map<string, AuthorizationCode>();
	private readonly refreshTokens = new Map<string, Grant>();
	private readonly revokedRefreshTokens = new Set<string>();

	/** The refresh token each access token was issued with: a token fault's grant. */
	private readonly grantOfAccessToken = new Map<string, string>();

	private tokenFaults: Array<TokenFaultOptions & { remaining: number }> = [];

	constructor(
		private readonly options: AuthorizationServerOptions,
		private readonly jwt: Jwt,
		private readonly clock: Clock,
	) {}

	get scopes(): string[] {
		return ['openid', this.options.apiScope];
	}

	handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
		const url = new URL(req.url ?? '/', this.options.issuer);
		const route = `${req.method} ${url.pathname}`;
		try {
			switch (route) {
				case 'GET /.well-known/openid-configuration':
					return this.json(res, 200, this.discovery());
				case 'GET /.well-known/jwks.json':
					return this.json(res, 200, this.jwt.jwks());
				case 'GET /oauth2/authorize':
					return this.authorize(url.searchParams, res);
				case 'POST /oauth2/token': {
					const raw = await readBody(req);
					const fault = this.tokenFault(req, raw);
					if (fault) return this.answerFault(res, fault);
					return this.json(res, 200, this.token(req, raw), {
						'cache-control': 'no-store',
						pragma: 'no-cache',
					});
				}
				default:
					return this.json(res, 404, { message: `No route ${route} on the authorization server` });
			}
		} catch (error) {
			if (error instanceof OAuthError) {
				return this.json(
					res,
					error.status,
					{ error: error.error, error_description: error.message },
					{ 'cache-control': 'no-store' },
				);
			}
			if (error instanceof HttpError)
				return this.json(res, error.status, { message: error.message });
			throw error;
		}
	};

	private json(
		res: ServerResponse,
		status: number,
		body: unknown,
		headers: Record<string, string> = {},
	): number {
		sendJson(res, status, body, headers);
		return status;
	}

	private discovery() {
		const { issuer } = this.options;
		return {
			issuer,
			authorization_endpoint: `${issuer}/oauth2/authorize`,
			token_endpoint: `${issuer}/oauth2/token`,
			jwks_uri: `${issuer}/.well-known/jwks.json`,
			scopes_supported: this.scopes,
			response_types_supported: ['code'],
			grant_types_supported: ['authorization_code', 'refresh_token'],
			code_challenge_methods_supported: ['S256'],
			token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
			subject_types_supported: ['public'],
			id_token_signing_alg_values_supported: ['RS256'],
		};
	}

	/**
	 * Errors about the client or the redirect URI are shown as a page (never redirected to an
	 * unverified address); every later error goes back to the redirect URI, as RFC 6749 §4.1.2.1 says.
	 */
	private authorize(params: URLSearchParams, res: ServerResponse): number {
		const clientId = params.get('client_id');
		const redirectUri = params.get('redirect_uri');
		if (clientId !== this.options.clientId) {
			return this.errorPage(
				res,
				`Unknown client_id '${clientId ?? ''}': use the OAuth client id registered for your application.`,
			);
		}
		if (!redirectUri || !this.options.redirectUris.includes(redirectUri)) {
			return this.errorPage(
				res,
				`The redirect_uri '${redirectUri ?? ''}' is not allow-listed for this client. Allowed: ${this.options.redirectUris.join(', ')}.`,
			);
		}
		const back = (query: Record<string, string>) => {
			const target = new URL(redirectUri);
			for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
			const state = params.get('state');
			if (state !== null) target.searchParams.set('state', state);
			res.writeHead(302, { location: target.toString(), 'cache-control': 'no-store' }).end();
			return 302;
		};
		const fail = (error: string, description: string) =>
			back({ error, error_description: description });

		if (params.get('response_type') !== 'code') {
			return fail(
				'unsupported_response_type',
				'Only response_type=code (Authorization Code with PKCE) is supported',
			);
		}
		const scope = params.get('scope') ?? '';
		const scopeProblem = this.scopeProblem(scope.split(' ').filter(Boolean));
		if (scopeProblem) return fail('invalid_scope', scopeProblem);
		const method = params.get('code_challenge_method');
		if (method !== 'S256') {
			return fail(
				'invalid_request',
				method === null
					? 'PKCE is required: send code_challenge and code_challenge_method=S256'
					: `code_challenge_method '${method}' is not allowed: only S256 is supported`,
			);
		}
		const codeChallenge = params.get('code_challenge') ?? '';
		if (!/^[\w-]{43}$/.test(codeChallenge)) {
			return fail(
				'invalid_request',
				'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
			);
		}
		const code = randomBytes(32).toString('base64url');
		this.codes.set(code, {
			clientId,
			redirectUri,
			scope,
			codeChallenge,
			nonce: params.get('nonce') ?? undefined,
			expiresAtMs: this.clock.nowMs() + CODE_TTL_MS,
		});
		return back({ code });
	}

	private scopeProblem(scopes: string[]): string | undefined {
		const wanted = `openid ${this.options.apiScope}`;
		if (scopes.length === 0) return `scope is required: request '${wanted}'`;
		const unknown = scopes.find((scope) => !this.scopes.includes(scope));
		if (unknown) return `Unknown scope '${unknown}': this server grants '${wanted}'`;
		if (!scopes.includes('openid')) return `The scope openid is required: request '${wanted}'`;
		return undefined;
	}

	private errorPage(res: ServerResponse, message: string): number {
		const escaped = message.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
		res
			.writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
			.end(
				`<!doctype html><title>Authorization failed</title><h1>Authorization failed</h1><p>${escaped}</p>`,
			);
		return 400;
	}

	private token(req: IncomingMessage, raw: Buffer) {
		const params = tokenParams(req, raw);
		const clientId = this.authenticateClient(req, params.client_id);
		switch (params.grant_type) {
			case 'authorization_code':
				return this.redeemCode(clientId, params);
			case 'refresh_token':
				return this.refresh(clientId, params);
			default:
				throw new OAuthError(
					'unsupported_grant_type',
					'grant_type must be authorization_code or refresh_token',
				);
		}
	}

	/**
	 * The service issues a client id only (a public client): it comes in the body, or as HTTP
	 * Basic with an empty secret (what n8n's OAuth2 client sends with "Send as header").
	 */
	private authenticateClient(req: IncomingMessage, bodyClientId: string | undefined): string {
		let clientId = bodyClientId;
		const basic = /^Basic +(\S+)$/i.exec(req.headers.authorization ?? '');
		if (basic) {
			const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
			const separator = decoded.indexOf(':');
			const [id, secret] =
				separator < 0 ? [decoded, ''] : [decoded.slice(0, separator), decoded.slice(separator + 1)];
			if (secret !== '')
				throw new OAuthError(
					'invalid_client',
					'This client has no secret: send the client id only',
					401,
				);
			let headerClientId: string;
			try {
				headerClientId = decodeURIComponent(id);
			} catch {
				throw new OAuthError(
					'invalid_client',
					'The client id in the Authorization header is not correctly URL-encoded',
					401,
				);
			}
			if (clientId !== undefined && clientId !== headerClientId) {
				throw new OAuthError(
					'invalid_request',
					'client_id in the body and in the Authorization header differ',
				);
			}
			clientId = headerClientId;
		}
		if (clientId === undefined)
			throw new OAuthError('invalid_client', 'client_id is required', 401);
		if (clientId !== this.options.clientId)
			throw new OAuthError('invalid_client', `Unknown client_id '${clientId}'`, 401);
		return clientId;
	}

	private redeemCode(clientId: string, params: Record<string, string>) {
		const stored = params.code === undefined ? undefined : this.codes.get(params.code);
		if (!stored || stored.clientId !== clientId) {
			throw new OAuthError(
				'invalid_grant',
				'The authorization code is unknown or was already used: authorize again',
			);
		}
		// Single use: any redemption attempt consumes the code, so a verifier cannot be guessed.
		this.codes.delete(params.code);
		if (stored.expiresAtMs <= this.clock.nowMs()) {
			throw new OAuthError(
				'invalid_grant',
				'The authorization code expired (codes live one minute): authorize again',
			);
		}
		if (params.redirect_uri !== stored.redirectUri) {
			throw new OAuthError(
				'invalid_grant',
				'redirect_uri does not match the one used to authorize',
			);
		}
		if (params.code_verifier === undefined) {
			throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
		}
		const challenge = Buffer.from(
			createHash('sha256').update(params.code_verifier).digest('base64url'),
		);
		const expected = Buffer.from(stored.codeChallenge);
		if (challenge.length !== expected.length || !timingSafeEqual(challenge, expected)) {
			throw new OAuthError(
				'invalid_grant',
				'code_verifier does not match the code_challenge sent to authorize',
			);
		}
		const refreshToken = randomBytes(32).toString('base64url');
		this.refreshTokens.set(refreshToken, { clientId, scope: stored.scope });
		return this.tokens(clientId, stored.scope, refreshToken, stored.nonce);
	}

	injectTokenFaults(options: TokenFaultOptions): void {
		const { count, error, status, retryAfterSeconds, drop, accessToken } = options;
		if (!Number.isInteger(count) || count < 1)
			throw new RangeError('count must be a whole number of renewals, at least 1');
		if (error !== undefined && !/^[\x20-\x7e]+$/.test(String(error)))
			throw new RangeError('error must be an OAuth error code');
		if (status !== undefined && !(Number.isInteger(status) && status >= 400 && status <= 599))
			throw new RangeError('status must be from 400 to 599');
		if (
			retryAfterSeconds !== undefined &&
			!(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 0)
		)
			throw new RangeError('retryAfterSeconds must be a whole number, 0 or more');
		if (
			drop !== undefined &&
			(typeof drop !== 'boolean' || (drop && (error ?? status) !== undefined))
		)
			throw new RangeError(
				'drop must be true or false, and drop answers nothing: no error or status',
			);
		if (accessToken !== undefined && !this.grantOfAccessToken.has(accessToken))
			throw new RangeError('accessToken must be an access token this server issued');
		this.tokenFaults.push({ ...options, remaining: count });
	}

	clearTokenFaults(): void {
		this.tokenFaults = [];
	}

	private tokenFault(req: IncomingMessage, raw: Buffer): TokenFaultOptions | undefined {
		if (this.tokenFaults.length === 0) return undefined;
		let params: Record<string, string>;
		try {
			params = tokenParams(req, raw);
		} catch {
			return undefined;
		}
		if (params.grant_type !== 'refresh_token') return undefined;
		const fault = this.tokenFaults.find(
			(candidate) =>
				candidate.accessToken === undefined ||
				this.grantOfAccessToken.get(candidate.accessToken) === params.refresh_token,
		);
		if (fault && --fault.remaining === 0)
			this.tokenFaults.splice(this.tokenFaults.indexOf(fault), 1);
		return fault;
	}

	private answerFault(res: ServerResponse, fault: TokenFaultOptions): number {
		if (fault.drop) {
			res.socket?.destroy();
			return DROPPED;
		}
		const status = fault.status ?? (fault.error ? (TOKEN_FAULT_STATUS[fault.error] ?? 400) : 503);
		const body = fault.error
			? {
					error: fault.error,
					error_description: `The authorization server refused the renewal (${fault.error}, a fault injected by the sandbox)`,
				}
			: { message: 'The authorization server is unavailable (a fault injected by the sandbox)' };
		const headers: Record<string, string> = { 'cache-control': 'no-store' };
		if (fault.retryAfterSeconds !== undefined)
			headers['retry-after'] = String(fault.retryAfterSeconds);
		return this.json(res, status, body, headers);
	}

	/**
	 * What the demo user does in the service's web app by removing the app's access: every refresh
	 * token issued so far is refused from now on. Access tokens already issued stay valid until
	 * they expire (they are self-contained JWTs).
	 */
	revokeGrants(): void {
		for (const refreshToken of this.refreshTokens.keys())
			this.revokedRefreshTokens.add(refreshToken);
		this.refreshTokens.clear();
	}

	/** The refresh token stays valid (no rotation); `scope` may narrow the new access token. */
	private refresh(clientId: string, params: Record<string, string>) {
		if (params.refresh_token !== undefined && this.revokedRefreshTokens.has(params.refresh_token)) {
			throw new OAuthError('invalid_grant', 'Access was revoked by the user: connect again');
		}
		const grant =
			params.refresh_token === undefined ? undefined : this.refreshTokens.get(params.refresh_token);
		if (!grant || grant.clientId !== clientId)
			throw new OAuthError('invalid_grant', 'The refresh token is unknown: connect again');
		let scope = grant.scope;
		if (params.scope !== undefined) {
			const granted = grant.scope.split(' ');
			const requested = params.scope.split(' ').filter(Boolean);
			if (requested.some((item) => !granted.includes(item))) {
				throw new OAuthError('invalid_scope', 'A refresh can only ask for scopes granted before');
			}
			scope = requested.join(' ');
		}
		return this.tokens(clientId, scope, params.refresh_token, undefined);
	}

	private tokens(clientId: string, scope: string, refreshToken: string, nonce: string | undefined) {
		const { issuer, audience, user, accessTokenTtlSeconds } = this.options;
		const issuedAt = Math.floor(this.clock.nowMs() / 1000);
		const expiresAt = issuedAt + accessTokenTtlSeconds;
		const accessToken = this.jwt.sign({
			iss: issuer,
			aud: audience,
			sub: user.id,
			firm: user.firmId,
			scope,
			client_id: clientId,
			iat: issuedAt,
			exp: expiresAt,
			jti: randomBytes(12).toString('base64url'),
		});
		const idToken = scope.split(' ').includes('openid')
			? this.jwt.sign({
					iss: issuer,
					aud: clientId,
					sub: user.id,
					name: user.name,
					email: user.email,
					iat: issuedAt,
					exp: expiresAt,
					...(nonce === undefined ? {} : { nonce }),
				})
			: undefined;
		this.grantOfAccessToken.set(accessToken, refreshToken);
		return {
			access_token: accessToken,
			token_type: 'Bearer',
			expires_in: accessTokenTtlSeconds,
			refresh_token: refreshToken,
			id_token: idToken,
			scope,
		};
	}
}

/** The token endpoint's form (application/x-www-form-urlencoded) or JSON body, as strings. */
function tokenParams(req: IncomingMessage, raw: Buffer): Record<string, string> {
	const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (type === 'application/x-www-form-urlencoded') {
		return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
	}
	if (type === 'application/json') {
		let body: unknown;
		try {
			body = JSON.parse(raw.toString('utf8'));
		} catch {
			throw new OAuthError('invalid_request', 'The body is not valid JSON');
		}
		if (typeof body !== 'object' || body === null)
			throw new OAuthError('invalid_request', 'The body must be an object');
		return Object.fromEntries(
			Object.entries(body).filter(
				(entry): entry is [string, string] => typeof entry[1] === 'string',
			),
		);
	}
	throw new OAuthError(
		'invalid_request',
		'Send the token request as application/x-www-form-urlencoded (or application/json)',
	);
}
