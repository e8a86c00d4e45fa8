/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-hardcoded-secrets, no-console --
   development tooling, not a node: runs in Node, not in n8n; logs errors it does not expect; its demo API keys and OAuth2 client id are published test values (sandbox/README.md) */
/**
 * A runnable sandbox of the Client Compliance Records Service: the API on one port, its
 * OAuth 2.0 authorization server on another, deterministic demo data, and test controls.
 * Node built-ins only: the same code serves the CLI (`compliance-records-sandbox`) and tests.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';

import { Api } from './api';
import type { ApiKeyOptions, TokenFaultOptions } from './auth';
import { ApiKeys, Authenticator, AuthorizationServer, Jwt } from './auth';
import type { ClockSetting } from './clock';
import { Clock } from './clock';
import type { ControlTarget, FaultOptions, LoggedRequest, SandboxControls } from './controls';
import { Faults, NotFoundError, RequestLog } from './controls';
import type { ErrorFormat } from './errorFormat';
import { ErrorAnswers } from './errorFormat';
import {
	INTERNAL_ERROR_MESSAGE,
	closeServer,
	dateFromClock,
	listen,
	origin,
	sendJson,
} from './http';
import type { LimitSettings, RateLimit, RateLimitHeaders, RateLimitShape, Traffic } from './limits';
import { Limits } from './limits';
import { Cursors } from './paging';
import { Renderer } from './render';
import { Random, seedStore } from './seed';
import type { ChangeRecord, Firm, RiskLevel, StaffMember } from './store';
import { RISK_LEVELS, Store } from './store';

export type {
	ApiKeyOptions,
	ChangeRecord,
	ClockSetting,
	ErrorFormat,
	FaultOptions,
	Firm,
	LimitSettings,
	LoggedRequest,
	RateLimit,
	RateLimitHeaders,
	RateLimitShape,
	RiskLevel,
	SandboxControls,
	StaffMember,
	TokenFaultOptions,
	Traffic,
};
export { ERROR_FORMATS } from './errorFormat';
export { RATE_LIMIT_HEADERS, RATE_LIMIT_SHAPES } from './limits';
export { COMPANY_REGISTRY } from './registry';

export const DEMO_API_KEY = 'crs_demo_harwood_finch_4f8e2b1c9a7d6e5f';
export const OTHER_FIRM_API_KEY = 'crs_demo_pemberton_rowe_0a1b2c3d4e5f';
export const DEMO_OAUTH_CLIENT_ID = 'crs-demo-n8n-client';
/** n8n's OAuth2 callback on its default port, by host name and by address. */
export const DEFAULT_REDIRECT_URIS = [
	'http://localhost:5678/rest/oauth2-credential/callback',
	'http://127.0.0.1:5678/rest/oauth2-credential/callback',
];

export interface SandboxOptions {
	/** API server port; 0 (default) picks a free one. */
	port?: number;
	/** Authorization server port; 0 (default) picks a free one. */
	authPort?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** Path prefix of the API, e.g. `/v1`; default none. */
	apiPath?: string;
	/** Clients seeded in the main firm; default 0. */
	clients?: number;
	/** Seed of the demo data: the same seed and clients give the same data. Default 1. */
	seed?: string | number;
	/** The main firm's API key; default DEMO_API_KEY. */
	apiKey?: string;
	oauthClientId?: string;
	/** Redirect URIs allow-listed for the OAuth client; default n8n's callback on port 5678. */
	redirectUris?: string[];
	/** Default 3600. */
	accessTokenTtlSeconds?: number;
	/** Answer the test control routes under /__sandbox/ (loopback callers only). Default false. */
	controls?: boolean;
	/** The shape of the API's error answers (one of ERROR_FORMATS); default `message`: `{ "message": "..." }`. */
	errorFormat?: ErrorFormat;
	/** A real service's limits: rate limit, latency, gateway errors (limits.ts); default none. */
	limits?: LimitSettings;
	/** Receives one line per request (method, path, status, time); never headers or bodies. */
	log?: (line: string) => void;
}

export interface Sandbox extends SandboxControls {
	/** API base, no trailing slash (includes apiPath). */
	baseUrl: string;
	/** Authorization server base. */
	authUrl: string;
	/** The OAuth scope of the API: `<baseUrl>/api:full`. */
	apiScope: string;
	apiKey: string;
	oauthClientId: string;
	redirectUris: string[];
	firm: { id: string; name: string };
	otherFirm: { id: string; name: string; apiKey: string };
	close(): Promise<void>;
	/** The service's time, as an ISO 8601 date-time string. */
	now(): string;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const host = options.host ?? '127.0.0.1';
	const apiPath = normaliseApiPath(options.apiPath ?? '');
	const seed = options.seed ?? 1;
	const clients = options.clients ?? 0;
	if (!Number.isInteger(clients) || clients < 0)
		throw new RangeError('clients must be a whole number, 0 or more');
	const apiKey = options.apiKey ?? DEMO_API_KEY;
	const oauthClientId = options.oauthClientId ?? DEMO_OAUTH_CLIENT_ID;
	const redirectUris = [...(options.redirectUris ?? DEFAULT_REDIRECT_URIS)];
	const errorAnswers = new ErrorAnswers(options.errorFormat ?? 'message');
	const limits = new Limits(new Random(`limits:${seed}`));
	limits.set(options.limits ?? {});

	const signing = Jwt.create(); // generates its key on the thread pool while we seed
	const clock = new Clock();
	const store = new Store(clock, randomUUID);
	const seeded = seedStore(store, { clients, seed, startMs: clock.nowMs() });
	const jwt = await signing;

	const apiServer = createServer();
	const authServer = createServer();
	const closing = new AbortController();
	const close = async () => {
		closing.abort();
		await Promise.all([closeServer(apiServer), closeServer(authServer)]);
	};
	let baseUrl: string;
	let authUrl: string;
	try {
		baseUrl = origin(host, await listen(apiServer, options.port ?? 0, host)) + apiPath;
		authUrl = origin(host, await listen(authServer, options.authPort ?? 0, host));
	} catch (error) {
		await close();
		throw error;
	}
	const apiScope = `${baseUrl}/api:full`;
	const firmExists = (firmId: string) => store.firms.has(firmId);
	const keys = new ApiKeys(clock, seeded.main.firm.id, firmExists);
	keys.add(apiKey, { name: 'Demo key' });
	keys.add(OTHER_FIRM_API_KEY, { firmId: seeded.other.firm.id, name: 'Demo key' });

	const renderer = new Renderer(store, baseUrl);
	const requestLog = new RequestLog();
	const faults = new Faults(() => clock.nowMs());
	const cursors = new Cursors(createHash('sha256').update(`cursor:${seed}`).digest());
	const controls: ControlTarget = {
		setClock: (setting) => clock.set(setting),
		clock: () => clock.describe(),
		injectFaults: (fault) => faults.inject(fault),
		clearFaults: () => faults.clear(),
		setErrorFormat: (format) => errorAnswers.setFormat(format),
		requests: () => requestLog.all(),
		clearRequests: () => requestLog.clear(),
		changes: () => store.changes(),
		completeAmlDetermination: (clientId, riskLevel) => {
			if (!RISK_LEVELS.includes(riskLevel))
				throw new RangeError(`riskLevel must be one of ${RISK_LEVELS.join(', ')}`);
			const client = store.clients.get(clientId);
			if (!client) throw new NotFoundError(`No client with id '${clientId}'`);
			store.completeAmlDetermination(client, riskLevel);
			return renderer.client(client);
		},
		createApiKey: (keyOptions) => keys.create(keyOptions),
		revokeApiKey: (key) => keys.revoke(key),
		expireCursors: () => cursors.expireAll(),
		revokeOAuthGrants: () => authorization.revokeGrants(),
		injectTokenFaults: (fault) => authorization.injectTokenFaults(fault),
		clearTokenFaults: () => authorization.clearTokenFaults(),
		setLimits: (settings) => limits.set(settings),
		traffic: () => limits.traffic(),
		resetTraffic: () => limits.resetTraffic(),
	};
	const authenticator = new Authenticator(
		keys,
		jwt,
		clock,
		{ issuer: authUrl, audience: baseUrl, apiScope },
		firmExists,
	);
	const api = new Api(
		store,
		renderer,
		authenticator,
		cursors,
		requestLog,
		faults,
		limits,
		errorAnswers,
		controls,
		{ apiPath, controls: options.controls === true, log: options.log },
		closing.signal,
	);
	const authorization = new AuthorizationServer(
		{
			issuer: authUrl,
			audience: baseUrl,
			apiScope,
			clientId: oauthClientId,
			redirectUris,
			accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
			user: { ...seeded.demoUser, firmId: seeded.main.firm.id },
		},
		jwt,
		clock,
	);
	apiServer.on('request', answerErrors(clock, api.handle));
	authServer.on(
		'request',
		answerErrors(clock, async (req, res) => {
			const status = await authorization.handle(req, res);
			// The path only: the query of /oauth2/authorize carries codes and state.
			options.log?.(`auth ${req.method} ${new URL(req.url ?? '/', authUrl).pathname} ${status}`);
		}),
	);

	return {
		baseUrl,
		authUrl,
		apiScope,
		apiKey,
		oauthClientId,
		redirectUris,
		firm: { id: seeded.main.firm.id, name: seeded.main.firm.name },
		otherFirm: {
			id: seeded.other.firm.id,
			name: seeded.other.firm.name,
			apiKey: OTHER_FIRM_API_KEY,
		},
		close,
		now: () => clock.now(),
		setClock: controls.setClock,
		injectFaults: controls.injectFaults,
		clearFaults: controls.clearFaults,
		setErrorFormat: controls.setErrorFormat,
		requests: controls.requests,
		clearRequests: controls.clearRequests,
		changes: controls.changes,
		completeAmlDetermination: controls.completeAmlDetermination,
		createApiKey: controls.createApiKey,
		revokeApiKey: controls.revokeApiKey,
		expireCursors: controls.expireCursors,
		revokeOAuthGrants: controls.revokeOAuthGrants,
		injectTokenFaults: controls.injectTokenFaults,
		clearTokenFaults: controls.clearTokenFaults,
		setLimits: controls.setLimits,
		traffic: controls.traffic,
		resetTraffic: controls.resetTraffic,
	};
}

/**
 * A request handler whose answers carry the service clock's `Date`, and that answers 500 for an
 * unexpected error instead of stopping the process.
 */
function answerErrors(
	clock: Clock,
	handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
) {
	return (req: IncomingMessage, res: ServerResponse) => {
		dateFromClock(res, () => clock.nowMs());
		handler(req, res).catch((error) => {
			console.error('Compliance Records sandbox: internal error', error);
			sendJson(res, 500, { message: INTERNAL_ERROR_MESSAGE });
		});
	};
}

/** `v1`, `/v1/` and `/v1` all mean `/v1`; `/` means none. */
function normaliseApiPath(apiPath: string): string {
	const trimmed = apiPath.replace(/^\/+|\/+$/g, '');
	return trimmed ? `/${trimmed}` : '';
}
