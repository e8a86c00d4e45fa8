import type { Failure, IDataObject, IN8nHttpFullResponse } from 'n8n-workflow';

import { isObject, retryAfterMs, type ServiceAnswer, serviceWords } from './answers';

/** An error status that came back as a response (API key requests), on its way to {@link requestError}. */
export class ErrorStatus extends Error {
	constructor(readonly answer: ServiceAnswer) {
		super(`HTTP ${answer.status}`);
	}
}

export function throwErrorStatus(response: IN8nHttpFullResponse): void {
	if (response.statusCode >= 400) {
		throw new ErrorStatus({
			status: response.statusCode,
			body: response.body,
			headers: (response.headers ?? {}) as IDataObject,
		});
	}
}

/** What n8n's error keeps of a failed request: 2.x the HTTP client's error in `cause`; 1.x only `httpCode` and a JSON body in `context.data`. */
export interface ThrownError {
	message?: unknown;
	httpCode?: unknown;
	context?: { data?: unknown };
	cause?: {
		code?: unknown;
		message?: unknown;
		status?: unknown;
		body?: unknown;
		config?: { url?: unknown };
		response?: { status?: unknown; data?: unknown; headers?: IDataObject };
	};
}

/** The answer with an error status a failure carries: an {@link ErrorStatus} (API key) or n8n's thrown error (OAuth2). */
export function answerIn(error: unknown): ServiceAnswer | undefined {
	const { cause } = unwrapped(error);
	if (cause instanceof ErrorStatus) return cause.answer;
	const thrown = (cause ?? {}) as ThrownError;
	const response = thrown.cause?.response;
	const status = Number(response?.status ?? thrown.httpCode);
	if (!Number.isInteger(status) || status < 400 || status > 599) return undefined;
	return response
		? { status, body: response.data, headers: response.headers ?? {} }
		: { status, body: thrown.context?.data, headers: {} };
}

/** The network code of a request that got no answer (ECONNREFUSED, ETIMEDOUT...), however n8n carries it. */
export function networkCode(error: unknown): string | undefined {
	const thrown = (unwrapped(error).cause ?? {}) as ThrownError;
	return [thrown.cause?.code, thrown.httpCode].find(
		(code): code is string =>
			typeof code === 'string' && /^(E[A-Z_]+|ERR_[A-Z_]+|[A-Z_]*CERT[A-Z_]*)$/.test(code),
	);
}

/** What the retry rules (retries.ts) did with a request before it failed for good. */
export interface Sending {
	method: string;
	/** How often it was sent; 0 when the service had already asked every request to wait too long. */
	tries: number;
	/** A wait the service asked for that the node did not make: longer than the node waits, or than the trigger's poll had left. */
	declined?: { askedMs: number; allowedMs: number; byPoll: boolean };
	/** What the record showed when read back after a write the service may have applied; `failed`: it could not be read. */
	readBack?: 'not-applied' | 'overtaken' | 'failed';
}

export class FailedRequest extends Error {
	constructor(
		cause: unknown,
		readonly sending: Sending,
	) {
		super('The request to the service did not go through', { cause });
	}
}

export const unwrapped = (error: unknown): { cause: unknown; sending?: Sending } =>
	error instanceof FailedRequest
		? { cause: error.cause, sending: error.sending }
		: { cause: error };

/** What a failure proves, for n8n (its poll scheduler backs a trigger off by it); nothing when it proves nothing. */
export const FAILURE_OF_STATUS: Record<number, Failure['cause']> = {
	401: 'credential-invalid',
	429: 'rate-limited',
	502: 'temporarily-unavailable',
	503: 'temporarily-unavailable',
	504: 'temporarily-unavailable',
};

/** Network codes of a service that could not be reached at all: nothing was sent. */
export const UNREACHABLE = [
	'ECONNREFUSED',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENOTFOUND',
	'EAI_AGAIN',
];

/** The connection closed before the answer: the request may have arrived. */
export const CLOSED_EARLY = ['ECONNRESET', 'EPIPE'];

/** Codes after which a request may have reached the service: it timed out, or the connection closed early. */
export const MAY_HAVE_ARRIVED = ['ECONNABORTED', 'ETIMEDOUT', ...CLOSED_EARLY];

/** A POST or PATCH answered 5xx, timed out or cut off after sending, unless read back as not applied. */
export function mayHaveActed(error: unknown): boolean {
	const { cause, sending } = unwrapped(error);
	if (sending?.method !== 'POST' && sending?.method !== 'PATCH') return false;
	if (sending.readBack !== undefined) return sending.readBack !== 'not-applied';
	const status = answerIn(cause)?.status;
	const code = networkCode(cause);
	return (
		(status !== undefined && status >= 500) ||
		(code !== undefined && MAY_HAVE_ARRIVED.includes(code))
	);
}

export function failureOf(
	cause: Failure['cause'] | undefined,
	waitMs: number | undefined,
): Failure | undefined {
	if (cause === undefined) return undefined;
	if (cause === 'rate-limited' || cause === 'temporarily-unavailable')
		return { cause, ...(waitMs && { retryAfterMs: waitMs }) };
	return { cause } as Failure;
}

/** Whether an error of this package says the service is limiting requests or briefly unavailable: a wait can help. */
export function isTemporary(error: unknown): boolean {
	const cause = (error as { failure?: Failure }).failure?.cause;
	return cause === 'rate-limited' || cause === 'temporarily-unavailable';
}

/** An OAuth2 renewal the authorization server refused or could not serve, as much as n8n kept of it. */
export interface Renewal {
	code?: string;
	cause?: Failure['cause'];
	waitMs?: number;
	words: string;
}

/** Only a refusal that proves the credential dead asks to reconnect; a brief one or a limit asks to wait. */
const CAUSE_OF_CODE: Record<string, Failure['cause']> = {
	invalid_grant: 'credential-invalid',
	invalid_client: 'credential-invalid',
	unauthorized_client: 'credential-invalid',
	temporarily_unavailable: 'temporarily-unavailable',
	server_error: 'temporarily-unavailable',
	slow_down: 'rate-limited',
};

/** n8n 1.x keeps only its OAuth2 client's words, RFC 6749's own for these codes. */
const CODE_OF_WORDS: Array<[RegExp, string]> = [
	[/^The provided authorization grant /, 'invalid_grant'],
	[/^Client authentication failed /, 'invalid_client'],
	[/^The client is not authorized to request /, 'unauthorized_client'],
	[/^The authorization server encountered an unexpected condition/, 'server_error'],
	[
		/^The authorization server is currently unable to handle the request/,
		'temporarily_unavailable',
	],
];

const causeOfStatus = (status: number): Failure['cause'] | undefined =>
	status === 429 ? 'rate-limited' : status >= 500 ? 'temporarily-unavailable' : undefined;

/** A failed renewal: an OAuth error (EAUTH), an answer without one (ESTATUS, 2.x), or the token request's own failure (2.x, by its URL). */
export function renewalFailure(thrown: ThrownError, tokenUrl?: unknown): Renewal | undefined {
	const inner = thrown.cause;
	const message = String(thrown.message ?? '');
	if (thrown.httpCode === 'EAUTH' || inner?.code === 'EAUTH') {
		const body = isObject(inner?.body) ? inner.body : {};
		const code =
			typeof body.error === 'string'
				? body.error
				: (CODE_OF_WORDS.find(([words]) => words.test(message))?.[1] ??
					Object.keys(CAUSE_OF_CODE).find((known) => new RegExp(`\\b${known}\\b`).test(message)));
		const words = typeof body.error_description === 'string' ? body.error_description : message;
		return { code, cause: code === undefined ? undefined : CAUSE_OF_CODE[code], words };
	}
	if (inner?.code === 'ESTATUS')
		return { cause: causeOfStatus(Number(inner.status)), words: message };
	const url = inner?.config?.url;
	if (typeof tokenUrl !== 'string' || typeof url !== 'string' || !url.startsWith(tokenUrl))
		return undefined;
	const response = inner?.response;
	if (!response) return { cause: 'temporarily-unavailable', words: String(inner?.message) };
	const status = Number(response.status);
	const headers = response.headers ?? {};
	return {
		cause: causeOfStatus(status),
		waitMs: retryAfterMs(headers),
		words: serviceWords({ body: response.data, headers }) ?? `HTTP ${status}`,
	};
}
