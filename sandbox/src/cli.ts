#!/usr/bin/env node
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints where it listens and logs each request */
/**
 * `compliance-records-sandbox`: runs the sandbox until Ctrl-C. Prints where it listens and the
 * demo credentials; logs one line per request (never headers or bodies, so no secret).
 */
import { parseArgs } from 'node:util';

import type { ErrorFormat, LimitSettings, RateLimitHeaders, RateLimitShape } from './index';
import {
	COMPANY_REGISTRY,
	ERROR_FORMATS,
	RATE_LIMIT_HEADERS,
	RATE_LIMIT_SHAPES,
	startSandbox,
} from './index';

const USAGE = `Usage: compliance-records-sandbox [options]

A local sandbox of the Client Compliance Records Service, with demo data.

  --port N              API port (default 4010; 0 picks a free one)
  --auth-port N         OAuth2 authorization server port (default 4011)
  --host HOST           address to listen on (default 127.0.0.1)
  --api-path PATH       path prefix of the API, e.g. /v1 (default none)
  --clients N           clients seeded in the demo firm (default 500)
  --seed S              seed of the demo data (default 1): same seed and clients, same data
  --api-key KEY         the demo firm's API key (default a fixed demo key)
  --oauth-client-id ID  the registered OAuth2 client id (default a fixed demo id)
  --redirect-uri URL    an allow-listed OAuth2 redirect URI; repeat for several
                        (default n8n's callback on localhost:5678 and 127.0.0.1:5678)
  --access-token-ttl S  access token lifetime in seconds (default 3600)
  --controls            answer the test control routes under /__sandbox/ (loopback only)
  --error-format NAME   shape of the API's error answers: ${ERROR_FORMATS.join(', ')}
                        (default message: { "message": "..." })
  --rate-limit N[/S]    accept N requests a second (or per S seconds, e.g. 100/60),
                        then answer 429 with Retry-After (default none)
  --burst N             a token bucket's requests accepted at once after a quiet spell
                        (default N above; 2.5 is a quarter second's worth of 10 a second)
  --rate-limit-shape S  ${RATE_LIMIT_SHAPES.join(', ')} (default token-bucket)
  --rate-limit-headers F  tell the limit on every answer: ${RATE_LIMIT_HEADERS.join(', ')}
  --latency MS          milliseconds added before every API answer (default 0)
  --latency-spread MS   up to this many more for each request, at random (default 0)
  --unavailable-rate R  share of API requests (0 to 1) answered 502 or 503 (default 0)
  --quiet               do not log requests
  --help                show this help
`;

function fail(message: string): never {
	console.error(`compliance-records-sandbox: ${message}\n\n${USAGE}`);
	process.exit(2);
}

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number (got '${value}')`);
	return Number(value);
}

function describeLimits({
	rateLimit,
	latencyMs,
	latencySpreadMs,
	unavailableRate,
}: LimitSettings): string {
	const parts = [
		rateLimit &&
			`${rateLimit.requests} requests per ${rateLimit.perSeconds === 1 ? 'second' : `${rateLimit.perSeconds} seconds`} (${rateLimit.shape === undefined || rateLimit.shape === 'token-bucket' ? `burst ${rateLimit.burst ?? rateLimit.requests}` : rateLimit.shape}${rateLimit.headers ? `, ${rateLimit.headers} headers` : ''})`,
		latencyMs || latencySpreadMs
			? `${latencyMs ?? 0}${latencySpreadMs ? ` to ${(latencyMs ?? 0) + latencySpreadMs}` : ''} ms added to each answer`
			: undefined,
		unavailableRate ? `${unavailableRate * 100}% answered 502 or 503` : undefined,
	].filter(Boolean);
	return parts.length > 0
		? parts.join(', ')
		: 'none (--rate-limit, --latency, --latency-spread, --unavailable-rate)';
}

async function main(): Promise<void> {
	let values;
	try {
		({ values } = parseArgs({
			options: {
				port: { type: 'string' },
				'auth-port': { type: 'string' },
				host: { type: 'string' },
				'api-path': { type: 'string' },
				clients: { type: 'string' },
				seed: { type: 'string' },
				'api-key': { type: 'string' },
				'oauth-client-id': { type: 'string' },
				'redirect-uri': { type: 'string', multiple: true },
				'access-token-ttl': { type: 'string' },
				controls: { type: 'boolean' },
				'error-format': { type: 'string' },
				'rate-limit': { type: 'string' },
				burst: { type: 'string' },
				'rate-limit-shape': { type: 'string' },
				'rate-limit-headers': { type: 'string' },
				latency: { type: 'string' },
				'latency-spread': { type: 'string' },
				'unavailable-rate': { type: 'string' },
				quiet: { type: 'boolean' },
				help: { type: 'boolean' },
			},
		}));
	} catch (error) {
		fail((error as Error).message);
	}
	if (values.help) {
		console.log(USAGE);
		return;
	}
	const clients = wholeNumber('clients', values.clients, 500);
	const errorFormat = values['error-format'];
	if (errorFormat !== undefined && !ERROR_FORMATS.includes(errorFormat as ErrorFormat)) {
		fail(`--error-format must be one of ${ERROR_FORMATS.join(', ')} (got '${errorFormat}')`);
	}
	const rateLimit = values['rate-limit'];
	const rate =
		rateLimit === undefined ? undefined : /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(rateLimit);
	if (rate === null)
		fail(`--rate-limit must be N or N/SECONDS, e.g. 40 or 100/60 (got '${rateLimit}')`);
	const unavailableRate =
		values['unavailable-rate'] === undefined ? undefined : Number(values['unavailable-rate']);
	if (unavailableRate !== undefined && !(unavailableRate >= 0 && unavailableRate <= 1))
		fail('--unavailable-rate must be a number from 0 to 1');
	const limits: LimitSettings = {
		rateLimit: rate && {
			requests: Number(rate[1]),
			perSeconds: rate[2] === undefined ? 1 : Number(rate[2]),
			burst: values.burst === undefined ? undefined : Number(values.burst),
			shape: values['rate-limit-shape'] as RateLimitShape | undefined,
			headers: values['rate-limit-headers'] as RateLimitHeaders | undefined,
		},
		latencyMs: wholeNumber('latency', values.latency, 0),
		latencySpreadMs: wholeNumber('latency-spread', values['latency-spread'], 0),
		unavailableRate,
	};
	const sandbox = await startSandbox({
		port: wholeNumber('port', values.port, 4010),
		authPort: wholeNumber('auth-port', values['auth-port'], 4011),
		host: values.host,
		apiPath: values['api-path'],
		clients,
		seed: values.seed,
		apiKey: values['api-key'],
		oauthClientId: values['oauth-client-id'],
		redirectUris: values['redirect-uri'],
		accessTokenTtlSeconds:
			values['access-token-ttl'] === undefined
				? undefined
				: wholeNumber('access-token-ttl', values['access-token-ttl'], 0),
		controls: values.controls,
		errorFormat: errorFormat as ErrorFormat | undefined,
		limits,
		log: values.quiet ? undefined : (line) => console.log(`${new Date().toISOString()} ${line}`),
	}).catch((error: NodeJS.ErrnoException) => {
		fail(
			error.code === 'EADDRINUSE'
				? `a port is already in use (${error.message}); choose others with --port and --auth-port`
				: error.message,
		);
	});

	console.log(
		[
			`Compliance Records sandbox: ${sandbox.firm.name}, ${clients} clients (seed ${values.seed ?? 1})`,
			`  API base URL     ${sandbox.baseUrl}   (send accept-version: 1.0.0)`,
			`  Auth server URL  ${sandbox.authUrl}`,
			`  API key          ${sandbox.apiKey}`,
			`  OAuth client id  ${sandbox.oauthClientId}   (no client secret)`,
			`  OAuth scopes     openid ${sandbox.apiScope}`,
			`  Redirect URIs    ${sandbox.redirectUris.join(', ')}`,
			`  Company numbers  ${COMPANY_REGISTRY.map((company) => company.companyNumber).join(', ')} (for import_uk_company)`,
			`  Test controls    ${values.controls ? `on, loopback only: ${new URL(sandbox.baseUrl).origin}/__sandbox/` : 'off (--controls)'}`,
			`  Limits           ${describeLimits(limits)}`,
			'Press Ctrl-C to stop.',
		].join('\n'),
	);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`${signal}: stopping the sandbox`);
		sandbox.close().then(
			() => process.exit(0),
			(error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
