/**
 * Test controls: the request log, fault injection, and the HTTP routes under `/__sandbox/`
 * through which a test in another process (a real n8n's e2e run) drives the clock, faults,
 * logs, AML determinations and API keys. Off unless `controls` is on; loopback callers only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ApiKeyOptions } from './auth';
import type { ClockSetting } from './clock';
import { HttpError, badRequest, decodeComponent, isLoopback, jsonBody, notFound, readBody, sendJson } from './http';
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
	/** The status answered; undefined while the request is still being answered. */
	status?: number;
	/**
	 * For an error answer (status 400 or more): the `message` it carried, exactly as sent. A test
	 * can check that this reaches the user without repeating the sandbox's wording.
	 */
	errorMessage?: string;
}

/** An error as answered: its status and the `message` of its body. */
export interface ErrorAnswer {
	status: number;
	message: string;
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
	status?: 500 | 503 | 429;
	/** Sent as Retry-After (429 gets 1 second when not given). */
	retryAfterSeconds?: number;
	/** Wait this long before answering (with `status`, or normally without). */
	delayMs?: number;
	/** Only requests whose path (relative to the API base) starts with this. */
	path?: string;
}

export interface Fault {
	status?: number;
	retryAfterSeconds?: number;
	delayMs?: number;
}

const FAULT_MESSAGES: Record<number, string> = {
	500: 'Internal server error (a fault injected by the sandbox)',
	503: 'Service unavailable (a fault injected by the sandbox): try again later',
	429: 'Too many requests (a fault injected by the sandbox): retry after the Retry-After delay',
};

export class Faults {
	private pending: (FaultOptions & { remaining: number })[] = [];

	inject(options: FaultOptions): void {
		const { count, status, retryAfterSeconds, delayMs, path } = options;
		if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a whole number of requests, at least 1');
		if (status !== undefined && !(typeof status === 'number' && status in FAULT_MESSAGES)) throw new RangeError('status must be 500, 503 or 429');
		if (status === undefined && delayMs === undefined) throw new RangeError('give a status, a delayMs, or both');
		for (const [name, value] of Object.entries({ retryAfterSeconds, delayMs })) {
			if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new RangeError(`${name} must be a whole number, 0 or more`);
		}
		if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) throw new RangeError("path must start with '/'");
		this.pending.push({ ...options, remaining: count });
	}

	clear(): void {
		this.pending = [];
	}

	/** The fault for the next request on `path`, if any (each fault is used `count` times). */
	take(path: string): Fault | undefined {
		const fault = this.pending.find((candidate) => candidate.path === undefined || path.startsWith(candidate.path));
		if (!fault) return undefined;
		if (--fault.remaining === 0) this.pending.splice(this.pending.indexOf(fault), 1);
		const retryAfterSeconds = fault.retryAfterSeconds ?? (fault.status === 429 ? 1 : undefined);
		return { status: fault.status, retryAfterSeconds, delayMs: fault.delayMs };
	}

	/** Applies a fault: waits, then answers its status (returning that answer) or lets the request through. */
	async apply(fault: Fault, res: ServerResponse, signal: AbortSignal): Promise<ErrorAnswer | undefined> {
		if (fault.delayMs) await sleep(fault.delayMs, undefined, { signal });
		if (fault.status === undefined) return undefined;
		const headers: Record<string, string> =
			fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
		const answer = { status: fault.status, message: FAULT_MESSAGES[fault.status] };
		sendJson(res, answer.status, { message: answer.message }, headers);
		return answer;
	}
}

/** The admin and test controls of a running sandbox (also the `Sandbox`'s own methods). */
export interface SandboxControls {
	/** What the service's web app does: a new key for a firm (default the main firm). */
	createApiKey(options: ApiKeyOptions): string;
	revokeApiKey(key: string): void;
	/** What the web app does when the user removes the OAuth2 app's access: refresh tokens are refused. */
	revokeOAuthGrants(): void;
	setClock(setting: ClockSetting): void;
	injectFaults(options: FaultOptions): void;
	clearFaults(): void;
	requests(): LoggedRequest[];
	clearRequests(): void;
	changes(): ChangeRecord[];
	/** Completes an AML determination (not an API operation); returns the full client. */
	completeAmlDetermination(clientId: string, riskLevel: RiskLevel): unknown;
	/** Every list cursor issued so far expires: a request with one answers 400. */
	expireCursors(): void;
}

/** What the control routes act on. */
export interface ControlTarget extends SandboxControls {
	clock(): { now: string; offsetMs: number; frozenAt: string | null };
}

export const CONTROL_PREFIX = '/__sandbox/';

/**
 * Answers a request under `/__sandbox/`. When controls are off or the caller is not on this
 * machine it answers 404 like any unknown path, so the routes are invisible.
 */
export async function handleControl(
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
	target: ControlTarget,
	enabled: boolean,
): Promise<number> {
	const respond = (status: number, body?: unknown) => {
		sendJson(res, status, body);
		return status;
	};
	if (!enabled || !isLoopback(req.socket.remoteAddress)) {
		return respond(404, { message: `No route ${req.method} ${url.pathname}` });
	}
	try {
		const raw = await readBody(req);
		const body = () => {
			const value = jsonBody(req, raw);
			if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('The body must be a JSON object');
			return value as Record<string, unknown>;
		};
		const route = `${req.method} ${url.pathname.slice(CONTROL_PREFIX.length - 1)}`;
		const amlRoute = /^POST \/clients\/([^/]+)\/aml-determination$/.exec(route);
		if (amlRoute) {
			const clientId = decodeComponent(amlRoute[1], 'The client id');
			return respond(200, { data: target.completeAmlDetermination(clientId, body().riskLevel as RiskLevel) });
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
			case 'GET /requests':
				return respond(200, { data: target.requests() });
			case 'DELETE /requests':
				target.clearRequests();
				return respond(204);
			case 'GET /changes':
				return respond(200, { data: target.changes() });
			case 'POST /api-keys':
				return respond(201, { data: { key: target.createApiKey(body() as unknown as ApiKeyOptions) } });
			case 'POST /api-keys/revoke':
				target.revokeApiKey(String(body().key));
				return respond(204);
			case 'POST /cursors/expire':
				target.expireCursors();
				return respond(204);
			case 'POST /oauth2/revoke-grants':
				target.revokeOAuthGrants();
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
