/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * Test controls: the request log, fault injection, and the HTTP routes under `/__sandbox/`
 * through which a test in another process (a real n8n's e2e run) drives the clock, faults,
 * the error format, logs, AML determinations and API keys. Off unless `controls` is on;
 * loopback callers only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ApiKeyOptions, TokenFaultOptions } from './auth';
import type { ClockSetting } from './clock';
import type { ErrorAnswer, ErrorFormat } from './errorFormat';
import type { LimitSettings, Traffic } from './limits';
import {
	HttpError,
	badRequest,
	decodeComponent,
	httpDate,
	jsonBody,
	notFound,
	readBody,
	sendJson,
	untilClosed,
} from './http';
import type { ChangeRecord, RiskLevel } from './store';

/** One API request as the service received it. */
export interface LoggedRequest {
	method: string;
	/** Path relative to the API base (`/clients/123`, whatever `apiPath` is); the raw path if outside it. */
	path: string;
	/** Query as parsed (decoded; a repeated name gives an array). */
	query: Record<string, string | string[]>;
	/** The request target exactly as received (path with apiPath, raw query). */
	url: string;
	/** Header names lower-case. Verbatim, Authorization included: this log is for tests only. */
	headers: Record<string, string | string[] | undefined>;
	/** The parsed JSON body, or undefined when there was none or it was not JSON. */
	body: unknown;
	/** The status answered; undefined while the request is being answered, or if it never was (a hang fault). */
	status?: number;
	/** When it arrived and when it was answered (the host's clock, epoch ms, not the service clock). */
	receivedAt: number;
	answeredAt?: number;
	/**
	 * For an error answer (status 400 or more): its message, exactly as sent inside the body
	 * (whatever the error format). A test can check that this reaches the user without repeating
	 * the sandbox's wording.
	 */
	errorMessage?: string;
}

export class RequestLog {
	private entries: LoggedRequest[] = [];

	add(entry: LoggedRequest): LoggedRequest {
		this.entries.push(entry);
		return entry;
	}

	all(): LoggedRequest[] {
		return this.entries.map((entry) => structuredClone(entry));
	}

	clear(): void {
		this.entries = [];
	}
}

export interface FaultOptions {
	/** How many matching requests the fault applies to. */
	count: number;
	/** The status to answer instead of handling the request. */
	status?: 500 | 502 | 503 | 504 | 429;
	/** Sent as Retry-After (429 gets 1 second when not given). */
	retryAfterSeconds?: number;
	/** Retry-After as delay-seconds (default) or as an HTTP date: the service clock's now plus retryAfterSeconds. */
	retryAfterAs?: 'seconds' | 'date';
	/** Retry-After exactly as given, any text (`1.5`, `soon`): what a client makes of a malformed one; not with retryAfterSeconds. */
	retryAfterText?: string;
	/** Wait this long before answering (with `status`, or normally without). */
	delayMs?: number;
	/** Read the request, then never answer it: it stays open until the client gives up or the sandbox closes. */
	hang?: boolean;
	/** Read the request, then close the connection without an answer (with `afterHandling`, once it has acted). */
	drop?: boolean;
	/** Only requests whose path (relative to the API base) starts with this. */
	path?: string;
	/** Handle the request first (a POST creates its client), then answer `status` or `drop`: an answer lost on the way. */
	afterHandling?: boolean;
	/** Only requests made with this API key (a test's own, in a sandbox others use too). */
	apiKey?: string;
	/** Let this many matching requests through first (e.g. 1: from the second page of a listing on). */
	after?: number;
}

type Fault = Omit<FaultOptions, 'count' | 'path' | 'apiKey' | 'after'>;

const FAULT_MESSAGES: Record<number, string> = {
	500: 'Internal server error (a fault injected by the sandbox)',
	502: 'Bad gateway (a fault injected by the sandbox)',
	503: 'Service unavailable (a fault injected by the sandbox): try again later',
	504: 'Gateway timeout (a fault injected by the sandbox)',
	429: 'Too many requests (a fault injected by the sandbox): retry after the Retry-After delay',
};

/** What `Faults.apply` answers for a request that is never answered. */
export const UNANSWERED = 'unanswered';

export class Faults {
	private pending: (Pick<FaultOptions, 'path' | 'apiKey'> & {
		answer: Fault;
		remaining: number;
		after: number;
	})[] = [];

	/** `nowMs` is the service clock, for Retry-After as a date. */
	constructor(private readonly nowMs: () => number) {}

	inject(options: FaultOptions): void {
		const {
			count,
			status,
			retryAfterSeconds,
			retryAfterAs,
			retryAfterText,
			delayMs,
			hang,
			drop,
			path,
			afterHandling,
			apiKey,
			after,
		} = options;
		if (!Number.isInteger(count) || count < 1)
			throw new RangeError('count must be a whole number of requests, at least 1');
		if (status !== undefined && !(typeof status === 'number' && status in FAULT_MESSAGES))
			throw new RangeError('status must be 500, 502, 503, 504 or 429');
		if (hang !== undefined && typeof hang !== 'boolean')
			throw new RangeError('hang must be true or false');
		if (hang && (status !== undefined || delayMs !== undefined))
			throw new RangeError('hang never answers: give it no status or delayMs');
		if (drop !== undefined && typeof drop !== 'boolean')
			throw new RangeError('drop must be true or false');
		if (drop && (status !== undefined || hang))
			throw new RangeError('drop never answers: give it no status, nor hang');
		if (status === undefined && delayMs === undefined && !hang && !drop)
			throw new RangeError('give a status, a delayMs (or both), hang: true or drop: true');
		for (const [name, value] of Object.entries({ retryAfterSeconds, delayMs, after })) {
			if (value !== undefined && (!Number.isInteger(value) || value < 0))
				throw new RangeError(`${name} must be a whole number, 0 or more`);
		}
		if (retryAfterAs !== undefined && retryAfterAs !== 'seconds' && retryAfterAs !== 'date') {
			throw new RangeError("retryAfterAs must be 'seconds' or 'date'");
		}
		if (
			retryAfterText !== undefined &&
			(typeof retryAfterText !== 'string' ||
				retryAfterSeconds !== undefined ||
				retryAfterAs !== undefined)
		)
			throw new RangeError(
				'retryAfterText must be text, without retryAfterSeconds or retryAfterAs',
			);
		if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/')))
			throw new RangeError("path must start with '/'");
		if (
			afterHandling !== undefined &&
			(typeof afterHandling !== 'boolean' || (afterHandling && status === undefined && !drop))
		) {
			throw new RangeError('afterHandling must be true or false, and needs a status or drop');
		}
		if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === ''))
			throw new RangeError('apiKey must be an API key');
		const answer: Fault = {
			status,
			retryAfterSeconds:
				retryAfterSeconds ?? (status === 429 && retryAfterText === undefined ? 1 : undefined),
			retryAfterAs,
			retryAfterText,
			delayMs,
			hang,
			drop,
			afterHandling,
		};
		this.pending.push({ path, apiKey, answer, remaining: count, after: after ?? 0 });
	}

	clear(): void {
		this.pending = [];
	}

	/**
	 * The fault for the next request on `path` with this `authorization` header, if any: the first
	 * matching one that let its `after` requests through (each matching request counts for every
	 * fault still letting some through); each is used `count` times.
	 */
	take(path: string, authorization: string | undefined): Fault | undefined {
		const matching = this.pending.filter(
			(candidate) =>
				(candidate.path === undefined || path.startsWith(candidate.path)) &&
				(candidate.apiKey === undefined || authorization === `Bearer ${candidate.apiKey}`),
		);
		const fault = matching.find((candidate) => candidate.after === 0);
		for (const waiting of matching) if (waiting !== fault && waiting.after > 0) waiting.after--;
		if (!fault) return undefined;
		if (--fault.remaining === 0) this.pending.splice(this.pending.indexOf(fault), 1);
		return { ...fault.answer };
	}

	/**
	 * Applies a fault: waits, then gives the error to answer, or UNANSWERED once a hung request's
	 * client or the sandbox closed (or at once, its connection closed, for `drop`), or undefined to
	 * let the request through.
	 */
	async apply(
		fault: Fault,
		res: ServerResponse,
		signal: AbortSignal,
	): Promise<ErrorAnswer | typeof UNANSWERED | undefined> {
		if (fault.delayMs) await sleep(fault.delayMs, undefined, { signal });
		if (fault.hang) {
			await untilClosed(res, signal);
			return UNANSWERED;
		}
		if (fault.drop) {
			res.socket?.destroy();
			return UNANSWERED;
		}
		if (fault.status === undefined) return undefined;
		return {
			status: fault.status,
			message: FAULT_MESSAGES[fault.status],
			headers: this.retryAfter(fault),
		};
	}

	private retryAfter({
		retryAfterSeconds,
		retryAfterAs,
		retryAfterText,
	}: Fault): Record<string, string> {
		if (retryAfterText !== undefined) return { 'retry-after': retryAfterText };
		if (retryAfterSeconds === undefined) return {};
		if (retryAfterAs !== 'date') return { 'retry-after': String(retryAfterSeconds) };
		// Date from the same instant, so that Retry-After minus Date is exactly the delay.
		const nowMs = this.nowMs();
		return { date: httpDate(nowMs), 'retry-after': httpDate(nowMs + retryAfterSeconds * 1000) };
	}
}

/** The admin and test controls of a running sandbox (also the `Sandbox`'s own methods). */
export interface SandboxControls {
	/** What the service's web app does: a new key for a firm (default the main firm). */
	createApiKey(options: ApiKeyOptions): string;
	revokeApiKey(key: string): void;
	/** What the web app does when the user removes the OAuth2 app's access: refresh tokens are refused. */
	revokeOAuthGrants(): void;
	/** What the token endpoint answers the next renewals instead of a token (auth.ts). */
	injectTokenFaults(options: TokenFaultOptions): void;
	clearTokenFaults(): void;
	setClock(setting: ClockSetting): void;
	injectFaults(options: FaultOptions): void;
	clearFaults(): void;
	/** The shape of the API's error answers from now on (see ERROR_FORMATS); default `message`. */
	setErrorFormat(format: ErrorFormat): void;
	requests(): LoggedRequest[];
	clearRequests(): void;
	changes(): ChangeRecord[];
	/** Completes an AML determination (not an API operation); returns the full client. */
	completeAmlDetermination(clientId: string, riskLevel: RiskLevel): unknown;
	/** Every list cursor issued so far expires: a request with one answers 400. */
	expireCursors(): void;
	/** A real service's limits from now on: rate limit, latency, gateway errors (limits.ts). */
	setLimits(settings: LimitSettings): void;
	/** What the limits counted: requests, refusals, the most in flight at once. */
	traffic(): Traffic;
	resetTraffic(): void;
}

/** What the control routes act on. */
export interface ControlTarget extends SandboxControls {
	clock(): { now: string; offsetMs: number; frozenAt: string | null };
}

export const CONTROL_PREFIX = '/__sandbox/';

/**
 * Answers a request under `/__sandbox/` from a caller allowed to use the controls. Its errors
 * are `{ "message": "..." }` whatever the API's error format: these routes are not the API.
 */
export async function handleControl(
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
	target: ControlTarget,
): Promise<number> {
	const respond = (status: number, body?: unknown) => {
		sendJson(res, status, body);
		return status;
	};
	try {
		const raw = await readBody(req);
		const body = () => {
			const value = jsonBody(req, raw);
			if (typeof value !== 'object' || value === null || Array.isArray(value))
				throw badRequest('The body must be a JSON object');
			return value as Record<string, unknown>;
		};
		const route = `${req.method} ${url.pathname.slice(CONTROL_PREFIX.length - 1)}`;
		const amlRoute = /^POST \/clients\/([^/]+)\/aml-determination$/.exec(route);
		if (amlRoute) {
			const clientId = decodeComponent(amlRoute[1], 'The client id');
			return respond(200, {
				data: target.completeAmlDetermination(clientId, body().riskLevel as RiskLevel),
			});
		}
		switch (route) {
			case 'GET /clock':
				return respond(200, { data: target.clock() });
			case 'POST /clock':
				target.setClock(body() as ClockSetting);
				return respond(200, { data: target.clock() });
			case 'POST /faults':
				target.injectFaults(body() as unknown as FaultOptions);
				return respond(204);
			case 'DELETE /faults':
				target.clearFaults();
				return respond(204);
			case 'POST /error-format':
				target.setErrorFormat(body().format as ErrorFormat);
				return respond(204);
			case 'GET /requests':
				return respond(200, { data: target.requests() });
			case 'DELETE /requests':
				target.clearRequests();
				return respond(204);
			case 'GET /changes':
				return respond(200, { data: target.changes() });
			case 'POST /api-keys':
				return respond(201, {
					data: { key: target.createApiKey(body() as unknown as ApiKeyOptions) },
				});
			case 'POST /api-keys/revoke':
				target.revokeApiKey(String(body().key));
				return respond(204);
			case 'POST /cursors/expire':
				target.expireCursors();
				return respond(204);
			case 'POST /oauth2/revoke-grants':
				target.revokeOAuthGrants();
				return respond(204);
			case 'POST /oauth2/faults':
				target.injectTokenFaults(body() as unknown as TokenFaultOptions);
				return respond(204);
			case 'DELETE /oauth2/faults':
				target.clearTokenFaults();
				return respond(204);
			case 'POST /limits':
				target.setLimits(body() as LimitSettings);
				return respond(204);
			case 'GET /traffic':
				return respond(200, { data: target.traffic() });
			case 'DELETE /traffic':
				target.resetTraffic();
				return respond(204);
			default:
				throw notFound(`No control route ${req.method} ${url.pathname}`);
		}
	} catch (error) {
		if (error instanceof HttpError) return respond(error.status, { message: error.message });
		if (error instanceof RangeError) return respond(400, { message: error.message });
		if (error instanceof NotFoundError) return respond(404, { message: error.message });
		throw error;
	}
}

/** Thrown by control methods for an unknown id (answered 404 over HTTP). */
export class NotFoundError extends Error {}
