import type { Failure, IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { ExecutionBaseError, NodeApiError } from 'n8n-workflow';

import type { Authentication } from './credentials';
import { withItem } from './itemError';
import { headerOf, isObject } from './response';

/** The record a request was about, so "not found" can name it and the field it came from. */
export interface RecordRef {
	/** What the record is, e.g. `Client`. */
	label: string;
	id: string;
	/** The display name of the parameter that gave the ID, e.g. `Client ID`. */
	parameter?: string;
}

/** What an explanation may name: the credential kind, the record, the item, and what to hide. */
export interface ErrorContext {
	authentication: Authentication;
	record?: RecordRef;
	itemIndex?: number;
	/** Credential values to hide should the service ever echo one back. */
	secrets: string[];
	/** The request's timeout, for "did not answer within N seconds". */
	timeoutMs?: number;
	/** What to do about a timeout where the user can set one (the action node's settings). */
	timeoutAdvice?: string;
}

/** An HTTP answer with an error status, as received. */
export interface ServiceAnswer {
	status: number;
	body: unknown;
	headers: IDataObject;
}

const HIDDEN = '**hidden**';
/** The most characters of the service's words an error description quotes. */
const MAX_QUOTED_CHARS = 300;

const OAUTH2_RECONNECT = "Access could not be renewed. Open the 'Compliance Records OAuth2 API' credential and reconnect it.";
const RETRY_LATER = "Try again in a few minutes, or turn on 'Retry On Fail' in the node's settings.";

function redact(text: string, secrets: string[]): string {
	let redacted = text.replace(/Bearer\s+[\w.~+/=-]+/gi, `Bearer ${HIDDEN}`);
	for (const secret of secrets) redacted = redacted.split(secret).join(HIDDEN);
	return redacted;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function shortened(text: string): string {
	return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 1)}…` : text;
}

/* The service's words in the common error bodies of JSON APIs: a message at the top or nested, a
 * list of errors, RFC 9457 problem details. The keys are tried in this order. */
const MESSAGE_KEYS = ['detail', 'message', 'error_description', 'errorMessage', 'description', 'msg', 'reason', 'error', 'title'];
const LIST_KEYS = ['errors', 'invalid-params', 'invalid_params', 'violations', 'details'];
const FIELD_KEYS = ['field', 'param', 'parameter', 'pointer', 'path', 'name', 'property'];
const MAX_LISTED = 3;

function fieldOf(entry: IDataObject): string | undefined {
	const source = isObject(entry.source) ? entry.source : {};
	const found = [...FIELD_KEYS.map((key) => entry[key]), source.pointer, source.parameter].find(
		(value) => typeof value === 'string' && value.trim() !== '',
	);
	if (found !== undefined) return String(found);
	return Array.isArray(entry.loc) ? entry.loc.join('.') : undefined;
}

function listed(entries: unknown[], depth: number): string | undefined {
	const parts = entries
		.map((entry) => {
			const words = wordsInJson(entry, depth + 1);
			const field = isObject(entry) ? fieldOf(entry) : undefined;
			return words && field && !words.includes(field) ? `${field}: ${words}` : words;
		})
		.filter((part): part is string => part !== undefined);
	if (parts.length === 0) return undefined;
	const more = parts.length > MAX_LISTED ? ` (and ${parts.length - MAX_LISTED} more)` : '';
	return parts.slice(0, MAX_LISTED).join('; ') + more;
}

function wordsInJson(value: unknown, depth = 0): string | undefined {
	if (depth > 4) return undefined;
	if (typeof value === 'string') return oneLine(value) || undefined;
	if (Array.isArray(value)) return listed(value, depth);
	if (!isObject(value)) return undefined;
	const message = MESSAGE_KEYS.map((key) => value[key])
		.map((candidate) => (typeof candidate === 'string' || typeof candidate === 'object' ? wordsInJson(candidate, depth + 1) : undefined))
		.find((words) => words !== undefined);
	const list = LIST_KEYS.map((key) => value[key])
		.filter((candidate) => Array.isArray(candidate) || isObject(candidate))
		.map((candidate) => (Array.isArray(candidate) ? listed(candidate, depth) : wordsInJson(candidate, depth + 1)))
		.find((words) => words !== undefined);
	if (message && list && !message.includes(list)) return `${message}: ${list}`;
	return message ?? list;
}

const decodeEntities = (text: string) =>
	text
		.replace(/&nbsp;/gi, ' ')
		.replace(/&lt;/gi, '<')
		.replace(/&gt;/gi, '>')
		.replace(/&quot;/gi, '"')
		.replace(/&#39;|&apos;/gi, "'")
		.replace(/&amp;/gi, '&');

function textOfElement(html: string, tag: string): string | undefined {
	const match = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(html);
	const text = match && oneLine(decodeEntities(match[1].replace(/<[^>]*>/g, ' ')));
	return text || undefined;
}

/** An HTML page (a proxy's or gateway's, usually) summarised: its title or heading, and its first paragraph. */
function htmlSummary(html: string): string {
	const page = html.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '');
	const heading = textOfElement(page, 'title') ?? textOfElement(page, 'h1');
	const paragraph = textOfElement(page, 'p');
	const said = [heading, paragraph && paragraph !== heading ? paragraph : undefined].filter(Boolean).join(': ');
	return `${said || 'a page with no title'} (an HTML page, likely from a proxy or gateway in front of the service)`;
}

const looksLikeHtml = (text: string, contentType: string) =>
	/html/i.test(contentType) || /^\s*<(!doctype|html|head|body)\b/i.test(text);

/** The service's own words in an error answer, whatever the shape of its body; undefined when it has none. */
export function serviceWords(answer: Pick<ServiceAnswer, 'body' | 'headers'>): string | undefined {
	const { headers } = answer;
	const body = answer.body instanceof Uint8Array ? Buffer.from(answer.body).toString('utf8') : answer.body;
	if (typeof body !== 'string') return wordsInJson(body);
	const contentType = String(headerOf(headers, 'content-type') ?? '');
	if (looksLikeHtml(body, contentType)) return htmlSummary(body);
	if (/^\s*[[{]/.test(body)) {
		try {
			return wordsInJson(JSON.parse(body));
		} catch {
			// Not JSON after all: the text as it is.
		}
	}
	return oneLine(body) || undefined;
}

/**
 * The wait Retry-After asks for, in ms (RFC 9110): a number of seconds, or an HTTP date, read
 * against the answer's own Date when it has one (the service's clock) and the host's otherwise.
 */
export function retryAfterMs(headers: IDataObject): number | undefined {
	const value = String(headerOf(headers, 'retry-after') ?? '').trim();
	if (/^\d+$/.test(value)) return Number(value) * 1000;
	const until = Date.parse(value);
	if (!value || Number.isNaN(until)) return undefined;
	const now = Date.parse(String(headerOf(headers, 'date') ?? ''));
	return Math.max(0, until - (Number.isNaN(now) ? Date.now() : now));
}

/** What the retry rules (pacing.ts) did with a request before it failed for good. */
export interface Sending {
	method: string;
	/** How often it was sent; 0 when the service had already asked every request to wait too long. */
	tries: number;
	/** A wait the service asked for that the node did not make: longer than the node waits, or than the trigger's poll had left. */
	declined?: { askedMs: number; allowedMs: number; byPoll: boolean };
}

/** A request's last failure (its `cause`) and what the retry rules did, on its way to {@link requestError}. */
export class FailedRequest extends Error {
	constructor(
		cause: unknown,
		readonly sending: Sending,
	) {
		super('The request to the service failed', { cause });
	}
}

const unwrapped = (error: unknown): { cause: unknown; sending?: Sending } =>
	error instanceof FailedRequest ? { cause: error.cause, sending: error.sending } : { cause: error };

const plural = (count: number, unit: string) => `${count.toLocaleString('en-US')} ${unit}${count === 1 ? '' : 's'}`;

/** A wait in words: "7 seconds", "15 minutes", "2 hours". */
export function inWords(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return plural(seconds, 'second');
	const minutes = Math.round(seconds / 60);
	return minutes < 120 ? plural(minutes, 'minute') : plural(Math.round(minutes / 60), 'hour');
}

/** What a failure proves, for n8n (its poll scheduler backs a trigger off by it); nothing when it proves nothing. */
const FAILURE_OF_STATUS: Record<number, Failure['cause']> = {
	401: 'credential-invalid',
	429: 'rate-limited',
	502: 'temporarily-unavailable',
	503: 'temporarily-unavailable',
	504: 'temporarily-unavailable',
};

/** Network codes of a service that could not be reached at all: nothing was sent. */
export const UNREACHABLE = ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];

/** The connection closed before the answer: the request may have arrived. */
export const CLOSED_EARLY = ['ECONNRESET', 'EPIPE'];

/** Codes after which a request may have reached the service: it timed out, or the connection closed early. */
const MAY_HAVE_ARRIVED = ['ECONNABORTED', 'ETIMEDOUT', ...CLOSED_EARLY];

function failureOf(cause: Failure['cause'] | undefined, waitMs: number | undefined): Failure | undefined {
	if (cause === undefined) return undefined;
	if (cause === 'rate-limited' || cause === 'temporarily-unavailable') return { cause, ...(waitMs && { retryAfterMs: waitMs }) };
	return { cause } as Failure;
}

/** Whether an error of this package says the service is limiting requests or briefly unavailable: a wait can help. */
export function isTemporary(error: unknown): boolean {
	const cause = (error as { failure?: Failure }).failure?.cause;
	return cause === 'rate-limited' || cause === 'temporarily-unavailable';
}

interface Explanation {
	message: string;
	/** What to do. */
	advice: string;
	failure?: Failure;
}

function explainAnswer(answer: ServiceAnswer, context: ErrorContext, sending?: Sending): Explanation {
	const { status } = answer;
	const { record } = context;
	const askedMs = sending?.declined?.askedMs ?? retryAfterMs(answer.headers);
	const failure = failureOf(FAILURE_OF_STATUS[status], askedMs);
	switch (status) {
		case 400:
			return { message: 'The service refused the request', advice: 'Correct the value the service names, then run the node again.' };
		case 401:
			return context.authentication === 'oAuth2'
				? { message: 'The service refused the OAuth2 connection', advice: OAUTH2_RECONNECT, failure }
				: {
						message: 'The service refused the API key',
						advice:
							"The key is invalid, expired or revoked. Generate a new key in the service's web app (firm settings, API services) and paste it into the 'Compliance Records API' credential.",
						failure,
					};
		case 403:
			return {
				message: 'This credential is not allowed to do this',
				advice:
					'The API key may be read-only, or the connected user may not have the permission. Use a credential that is allowed to make changes.',
			};
		case 404:
			return record
				? {
						message: `${record.label} "${record.id}" was not found`,
						advice: `Check ${record.parameter ? `'${record.parameter}'` : 'the ID'}: it may be mistyped, or belong to another firm than the credential's.`,
					}
				: { message: 'Not found', advice: "Check the credential's 'Base URL'." };
		case 409:
			return {
				message: 'The reference number is already in use',
				advice: "Another client of the firm has this reference number. Use a different 'Reference Number'.",
			};
		case 429:
			return { message: 'The service is receiving too many requests', advice: rateLimitAdvice(askedMs, sending), failure };
		default:
			return status >= 500
				? { message: `The service could not complete the request (HTTP ${status})`, advice: RETRY_LATER, failure }
				: {
						message: `The service answered HTTP ${status}`,
						advice: "Check the node's parameters and the credential, then run the node again.",
					};
	}
}

function rateLimitAdvice(askedMs: number | undefined, sending?: Sending): string {
	if (sending?.declined?.byPoll) return 'The trigger keeps its place and tries again at a later poll.';
	const wait = askedMs === undefined ? 'Wait a few minutes' : `Wait ${inWords(askedMs)}`;
	return `${wait} and run the node again, or space the requests out with 'Batching' under 'Request Options' in the node's settings.`;
}

/** What the retry rules did, in a sentence; nothing for a request sent once and not resent. */
function triesTold({ tries, declined }: Sending): string | undefined {
	if (declined) {
		const allowed = declined.byPoll ? `this poll had ${inWords(declined.allowedMs)} left` : `the node waits at most ${inWords(declined.allowedMs)}`;
		return `It asked to wait ${inWords(declined.askedMs)} before the next request; ${allowed}.`;
	}
	return tries > 1 ? `The node sent the request ${tries} times, waiting between tries, and it failed each time.` : undefined;
}

/** The only request the service may act on twice is POST /clients (spec §4): a resend could create a second client. */
function mayHaveCreated(sending: Sending | undefined, status?: number, code?: string): string | undefined {
	if (sending?.method !== 'POST' || !((status !== undefined && status >= 500) || (code !== undefined && MAY_HAVE_ARRIVED.includes(code)))) return undefined;
	return "The service may have created the client before it failed, so the node did not send it again. Before you run the node again, check whether it exists: Client > Get Many with 'Modified Since' set to a time before this run lists it.";
}

const asSentence = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** Turns a service answer with an error status into the error the user sees: a short title, the service's words and what to do in the description. */
export function answerError(node: INode, answer: ServiceAnswer, context: ErrorContext, sending?: Sending): NodeApiError {
	const words = serviceWords(answer);
	const said = words === undefined ? `The service gave no reason (HTTP ${answer.status}).` : `The service said: ${asSentence(redact(shortened(words), context.secrets))}`;
	const { message, advice, failure } = explainAnswer(answer, context, sending);
	const description = [said, sending && triesTold(sending), mayHaveCreated(sending, answer.status), advice];
	return apiError(node, { message, advice: description.filter(Boolean).join(' '), failure }, context, answer.status);
}

function apiError(node: INode, { message, advice, failure }: Explanation, context: ErrorContext, status?: number) {
	// The raw error stays out: it carries the request, and with it the credential.
	const error = new NodeApiError(node, { message, ...(status && { status }) } as JsonObject, {
		message: withItem(message, context.itemIndex),
		description: advice,
		httpCode: status ? String(status) : undefined,
		itemIndex: context.itemIndex,
		failure,
	});
	// n8n-workflow before 2.40 ignores the option; the property lets isTemporary read it on every line.
	if (failure) error.failure = failure;
	return error;
}

/** An error status that came back as a response (API key requests), on its way to {@link requestError}. */
export class ErrorStatus extends Error {
	constructor(readonly answer: ServiceAnswer) {
		super(`HTTP ${answer.status}`);
	}
}

/** Throws a response with an error status as an {@link ErrorStatus}; a success passes. */
export function throwErrorStatus(response: IN8nHttpFullResponse): void {
	if (response.statusCode >= 400) {
		throw new ErrorStatus({ status: response.statusCode, body: response.body, headers: (response.headers ?? {}) as IDataObject });
	}
}

/**
 * What n8n's error keeps of a request that failed; it differs between n8n lines. n8n 2.x keeps
 * the HTTP client's error in `cause`; n8n 1.x only the status (or the network code) in
 * `httpCode` and a JSON object body in `context.data`: no headers, no text body.
 */
interface ThrownError {
	message?: unknown;
	httpCode?: unknown;
	context?: { data?: unknown };
	cause?: {
		code?: unknown;
		message?: unknown;
		body?: { error?: unknown };
		response?: { status?: unknown; data?: unknown; headers?: IDataObject };
	};
}

/**
 * The answer with an error status that a request's failure carries, however it came: an
 * {@link ErrorStatus} (API key) or n8n's thrown error (OAuth2); undefined for any other failure.
 */
export function answerIn(error: unknown): ServiceAnswer | undefined {
	const { cause } = unwrapped(error);
	if (cause instanceof ErrorStatus) return cause.answer;
	const thrown = cause as ThrownError;
	const response = thrown.cause?.response;
	const status = Number(response?.status ?? thrown.httpCode);
	if (!Number.isInteger(status) || status < 400 || status > 599) return undefined;
	return response
		? { status, body: response.data, headers: response.headers ?? {} }
		: { status, body: thrown.context?.data, headers: {} };
}

/** The network code of a request that got no answer (ECONNREFUSED, ETIMEDOUT...), however n8n carries it. */
export function networkCode(error: unknown): string | undefined {
	const thrown = unwrapped(error).cause as ThrownError;
	return [thrown.cause?.code, thrown.httpCode].find(
		(code): code is string => typeof code === 'string' && /^(E[A-Z_]+|ERR_[A-Z_]+|[A-Z_]*CERT[A-Z_]*)$/.test(code),
	);
}

function explainNetwork(code: string, context: ErrorContext): Explanation | undefined {
	const check = "Check the credential's 'Base URL' and that the service is up, then run the node again.";
	const unreachable = failureOf('temporarily-unavailable', undefined);
	if ((code === 'ECONNABORTED' || code === 'ETIMEDOUT') && context.timeoutMs !== undefined) {
		const seconds = Math.round(context.timeoutMs / 100) / 10;
		return {
			message: `The service did not answer within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`,
			advice: `Check that the service is up, then run the node again. ${context.timeoutAdvice ?? RETRY_LATER}`,
		};
	}
	if (code === 'ECONNREFUSED') return { message: 'The service refused the connection', advice: check, failure: unreachable };
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { message: "The service's address could not be found", advice: check, failure: unreachable };
	if (UNREACHABLE.includes(code)) return { message: 'The service could not be reached', advice: check, failure: unreachable };
	if (CLOSED_EARLY.includes(code) || code === 'ECONNABORTED') {
		return { message: 'The connection to the service closed before it answered', advice: RETRY_LATER };
	}
	if (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) {
		return {
			message: `The service's TLS certificate was not accepted (${code})`,
			advice: "Check the credential's 'Base URL': it must be the service's own https:// address, with a valid certificate.",
		};
	}
	return undefined;
}

/**
 * Whether n8n's OAuth2 client failed to renew the token: the authorization server refused it
 * (its error carries the code EAUTH; n8n 1.x keeps only that code, 2.x the whole error).
 */
function refusedRefresh(thrown: ThrownError): boolean {
	return thrown.httpCode === 'EAUTH' || (thrown.cause?.code === 'EAUTH' && typeof thrown.cause.body?.error === 'string');
}

/**
 * The error the user sees for whatever a request threw: an error status in the service's words,
 * a timeout, an unreachable service, a refused OAuth2 renewal, with what the retry rules did and
 * the cause n8n can act on; what n8n or the node already explained passes on as it is.
 */
export function requestError(node: INode, error: unknown, context: ErrorContext): ExecutionBaseError {
	const { cause, sending } = unwrapped(error);
	const answer = answerIn(cause);
	if (answer) return answerError(node, answer, context, sending);
	const thrown = cause as ThrownError;
	if (context.authentication === 'oAuth2' && refusedRefresh(thrown)) {
		const said = redact(String(thrown.message), context.secrets);
		const advice = `The authorization server said: ${asSentence(said)} ${OAUTH2_RECONNECT}`;
		return apiError(node, { message: 'The service refused the OAuth2 connection', advice, failure: { cause: 'credential-invalid' } }, context);
	}
	const code = networkCode(cause);
	const network = code === undefined ? undefined : explainNetwork(code, context);
	if (network) {
		const advice = [sending && triesTold(sending), mayHaveCreated(sending, undefined, code), network.advice].filter(Boolean).join(' ');
		return apiError(node, { ...network, advice }, context);
	}
	return cause instanceof ExecutionBaseError ? cause : new NodeApiError(node, cause as JsonObject, { itemIndex: context.itemIndex });
}
