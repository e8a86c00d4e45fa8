import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { ExecutionBaseError, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { retryAfterMs, type ServiceAnswer, serviceWords } from './answers';
import {
	answerIn,
	CLOSED_EARLY,
	FAILURE_OF_STATUS,
	failureOf,
	mayHaveActed,
	networkCode,
	type Renewal,
	renewalFailure,
	type Sending,
	type ThrownError,
	UNREACHABLE,
	unwrapped,
} from './failures';
import type { Authentication } from './credentialChoice';

/** A message about one input item ends in `[item N]` (n8n's UX guidelines); a poll's has no item. */
function withItem(message: string, itemIndex: number | undefined): string {
	return itemIndex === undefined ? message : `${message} [item ${itemIndex}]`;
}

/** The error of one input item, shown by n8n on that item: what went wrong, and what to do. */
export function itemError(
	node: INode,
	itemIndex: number | undefined,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(node, withItem(message, itemIndex), { itemIndex, description });
}

/** The record a request was about, so "not found" can name it and the field it came from. */
export interface RecordRef {
	/** What the record is, e.g. `Client`. */
	label: string;
	id: string;
	/** The display name of the parameter that gave the ID, e.g. `Client ID`. */
	parameter?: string;
}

interface Told {
	message: string;
	advice: string;
}

/** What an operation's errors say of its own record, given by its resource. */
export interface OperationWording {
	/** A 409's title and advice. */
	conflict?: Told;
	/** A write that may have acted, not sent again: what to check, by method. */
	mayHaveActed?: { POST?: string; PATCH?: string };
	/** An update that may have been applied, and a record someone else changed since. */
	overtaken?: Told;
}

/** What a create's errors say: also, after an earlier try, of several records made since that match it. */
export interface CreateWording extends OperationWording {
	severalCreated: Told;
}

/** What an explanation may name: the credential kind, the record, the item, and what to hide. */
export interface ErrorContext {
	wording?: OperationWording;
	authentication: Authentication;
	record?: RecordRef;
	itemIndex?: number;
	/** Credential values to hide should the service ever echo one back. */
	secrets: string[];
	/** The request's timeout, for "did not answer within N seconds". */
	timeoutMs?: number;
	/** How to wait longer, where the user can (the action node's settings). */
	timeoutSetting?: string;
	/** The OAuth2 credential's token URL: a failure there is a renewal's, not the service's. */
	tokenUrl?: unknown;
}

const HIDDEN = '**hidden**';
/** The most characters of the service's words an error description quotes. */
const MAX_QUOTED_CHARS = 300;

const OAUTH2_RECONNECT =
	"Access could not be renewed. Open the 'Compliance Records OAuth2 API' credential and reconnect it.";
const RETRY_LATER =
	"Try again in a few minutes, or turn on 'Retry On Fail' in the node's settings.";

const ACTED_BY_DEFAULT = {
	POST: 'The service may have acted on the request before this happened, so the node did not send it again.',
	PATCH:
		'The service may have applied the update without confirming it, so the node did not send it again. Check the record before you run the node again.',
};

const OVERTAKEN_BY_DEFAULT: Told = {
	message: 'The record changed while the node updated it',
	advice:
		'The service may have applied the update without confirming it, and someone else changed the record since. The node did not send the update again, so as not to undo their change: check the record, then run the node again if its values should still apply.',
};

function redact(text: string, secrets: string[]): string {
	let redacted = text.replace(/Bearer\s+[\w.~+/=-]+/gi, `Bearer ${HIDDEN}`);
	for (const secret of secrets) redacted = redacted.split(secret).join(HIDDEN);
	return redacted;
}

function shortened(text: string): string {
	return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 1)}…` : text;
}

const plural = (count: number, unit: string) =>
	`${count.toLocaleString('en-US')} ${unit}${count === 1 ? '' : 's'}`;

/** A wait in words: "7 seconds", "15 minutes", "2 hours". */
function waitInWords(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return plural(seconds, 'second');
	const minutes = Math.round(seconds / 60);
	return minutes < 120 ? plural(minutes, 'minute') : plural(Math.round(minutes / 60), 'hour');
}

interface Explanation {
	message: string;
	/** What to do. */
	advice: string;
	failure?: Failure;
}

function explainAnswer(
	answer: ServiceAnswer,
	context: ErrorContext,
	sending?: Sending,
): Explanation {
	const { status } = answer;
	const { record } = context;
	const askedMs = sending?.declined?.askedMs ?? retryAfterMs(answer.headers);
	const failure = failureOf(FAILURE_OF_STATUS[status], askedMs);
	switch (status) {
		case 400:
			return {
				message: 'The service refused the request',
				advice: 'Correct the value the service names, then try again.',
			};
		case 401:
			return context.authentication === 'oAuth2'
				? {
						message: 'The service refused the OAuth2 connection',
						advice: OAUTH2_RECONNECT,
						failure,
					}
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
			if (context.wording?.conflict) return { ...context.wording.conflict };
			break;
		case 429:
			return {
				message: 'The service is receiving too many requests',
				advice: rateLimitAdvice(askedMs, sending),
				failure,
			};
	}
	return status >= 500
		? {
				message: `The service could not complete the request (HTTP ${status})`,
				advice: RETRY_LATER,
				failure,
			}
		: {
				message: `The service answered HTTP ${status}`,
				advice: "Check the node's parameters and the credential, then run the node again.",
			};
}

function rateLimitAdvice(askedMs: number | undefined, sending?: Sending): string {
	if (sending?.declined?.byPoll)
		return 'The trigger keeps its place and tries again at a later poll.';
	// A wait of 0 (`Retry-After: 0`, or a date already past) says nothing of how long to wait now.
	const wait = askedMs ? `Wait ${waitInWords(askedMs)}` : 'Wait a few minutes';
	return `${wait} and run the node again, or space the requests out with 'Batching' under 'Request Options' in the node's settings.`;
}

/** What the retry rules did, in a sentence; nothing for a request sent once and not resent. */
function triesTold({ tries, declined }: Sending): string | undefined {
	if (declined) {
		const allowed = declined.byPoll
			? `this poll had ${waitInWords(declined.allowedMs)} left`
			: `the node waits at most ${waitInWords(declined.allowedMs)}`;
		return `It asked to wait ${waitInWords(declined.askedMs)} before the next request; ${allowed}.`;
	}
	return tries > 1
		? `The node sent the request ${tries} times, waiting between tries, and none went through.`
		: undefined;
}

/** What the operation says to check after a write that may have acted, which the node never sends again. */
function actedTold(context: ErrorContext, error: unknown): string | undefined {
	const method = unwrapped(error).sending?.method;
	if ((method !== 'POST' && method !== 'PATCH') || !mayHaveActed(error)) return undefined;
	return context.wording?.mayHaveActed?.[method] ?? ACTED_BY_DEFAULT[method];
}

const RAN_AGAIN =
	"n8n ran the node again in this execution ('Retry On Fail', or a Retry from the executions list)";

/** A create an earlier try may have made, not looked for: the service's answer gave no time to look by. */
export function notSentAgainError(node: INode, itemIndex: number): NodeOperationError {
	return itemError(
		node,
		itemIndex,
		'The node did not send this item again: an earlier try may have created it',
		`${RAN_AGAIN}, and could not look for what that try created: the service's answer carried no 'Date' header to time it by. Check whether the record exists before you run the node again.`,
	);
}

/** A create an earlier try may have made, and several records made since that match it. */
export function severalCreatedError(
	node: INode,
	itemIndex: number,
	records: Array<{ id?: unknown; name?: unknown }>,
	{ message, advice }: Told,
): NodeOperationError {
	const named = records.map(({ id, name }) => `"${String(name)}" (ID ${String(id)})`).join(', ');
	return itemError(
		node,
		itemIndex,
		message,
		`${RAN_AGAIN} after a create the service may have applied. Created since, with what this item sends: ${named}. ${advice}`,
	);
}

const asSentence = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** Turns a service answer with an error status into the error the user sees: a short title, the service's words and what to do in the description. */
function answerError(
	node: INode,
	answer: ServiceAnswer,
	context: ErrorContext,
	sending: Sending | undefined,
	acted: string | undefined,
): NodeApiError {
	const words = serviceWords(answer);
	const said =
		words === undefined
			? `The service gave no reason (HTTP ${answer.status}).`
			: `The service said: ${asSentence(redact(shortened(words), context.secrets))}`;
	const { message, advice, failure } = explainAnswer(answer, context, sending);
	// After a write that may have acted, what to check replaces the advice to try again.
	const description = [said, sending && triesTold(sending), acted ?? advice];
	return apiError(
		node,
		{ message, advice: description.filter(Boolean).join(' '), failure },
		context,
		answer.status,
	);
}

function apiError(
	node: INode,
	{ message, advice, failure }: Explanation,
	context: ErrorContext,
	status?: number,
) {
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

/** A failed OAuth2 renewal: only a dead credential asks to reconnect; a brief refusal or a limit, to wait. */
function explainRenewal(
	{ code, cause, waitMs, words }: Renewal,
	context: ErrorContext,
	sending?: Sending,
): Explanation {
	const named = code && !words.includes(code) ? `${words} (${code})` : words;
	const said = `The authorization server said: ${asSentence(redact(shortened(named), context.secrets))}`;
	const tries = sending && triesTold(sending);
	const failure = failureOf(cause, waitMs);
	const advice = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');
	switch (cause) {
		case 'credential-invalid':
			return {
				message: 'The service refused the OAuth2 connection',
				advice: advice(said, OAUTH2_RECONNECT),
				failure,
			};
		case 'temporarily-unavailable':
			return {
				message: 'The authorization server could not renew access',
				advice: advice(said, tries, `It is unavailable for a moment. ${RETRY_LATER}`),
				failure,
			};
		case 'rate-limited':
			return {
				message: 'The authorization server is receiving too many requests',
				advice: advice(said, tries, rateLimitAdvice(waitMs, sending)),
				failure,
			};
	}
	return {
		message: 'The authorization server refused to renew access',
		advice: advice(
			said,
			"Open the 'Compliance Records OAuth2 API' credential, check its 'Authorization Server URL', and reconnect it.",
		),
	};
}

function explainNetwork(
	code: string,
	context: ErrorContext,
	acted: string | undefined,
): Explanation | undefined {
	const check =
		"Check the credential's 'Base URL' and that the service is up, then run the node again.";
	const unreachable = failureOf('temporarily-unavailable', undefined);
	if ((code === 'ECONNABORTED' || code === 'ETIMEDOUT') && context.timeoutMs !== undefined) {
		const seconds = Math.round(context.timeoutMs / 100) / 10;
		const slow = context.timeoutSetting && `If it is only slow, ${context.timeoutSetting}`;
		return {
			message: `The service did not answer within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`,
			advice: acted
				? [acted, slow && `${slow}.`].filter(Boolean).join(' ')
				: `Check that the service is up, then run the node again. ${slow ? `${slow}, or turn on 'Retry On Fail'.` : RETRY_LATER}`,
		};
	}
	if (code === 'ECONNREFUSED')
		return { message: 'The service refused the connection', advice: check, failure: unreachable };
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return {
			message: "The service's address could not be found",
			advice: check,
			failure: unreachable,
		};
	if (UNREACHABLE.includes(code))
		return { message: 'The service could not be reached', advice: check, failure: unreachable };
	if (CLOSED_EARLY.includes(code) || code === 'ECONNABORTED') {
		return {
			message: 'The connection to the service closed before it answered',
			advice: acted ?? RETRY_LATER,
		};
	}
	if (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) {
		return {
			message: `The service's TLS certificate was not accepted (${code})`,
			advice:
				"Check the credential's 'Base URL': it must be the service's own https:// address, with a valid certificate.",
		};
	}
	return undefined;
}

/**
 * The error the user sees for whatever a request threw: an error status in the service's words,
 * a timeout, an unreachable service, a refused OAuth2 renewal, with what the retry rules did and
 * the cause n8n can act on; what n8n or the node already explained passes on as it is.
 */
export function requestError(
	node: INode,
	error: unknown,
	context: ErrorContext,
): ExecutionBaseError {
	const { cause, sending } = unwrapped(error);
	if (sending?.readBack === 'overtaken') {
		const { message, advice } = context.wording?.overtaken ?? OVERTAKEN_BY_DEFAULT;
		return itemError(node, context.itemIndex, message, advice);
	}
	const renewal =
		context.authentication === 'oAuth2'
			? renewalFailure(cause as ThrownError, context.tokenUrl)
			: undefined;
	if (renewal) return apiError(node, explainRenewal(renewal, context, sending), context);
	const acted = actedTold(context, error);
	const answer = answerIn(cause);
	if (answer) return answerError(node, answer, context, sending, acted);
	const code = networkCode(cause);
	const network = code === undefined ? undefined : explainNetwork(code, context, acted);
	if (network) {
		const advice = [sending && triesTold(sending), network.advice].filter(Boolean).join(' ');
		return apiError(node, { ...network, advice }, context);
	}
	return cause instanceof ExecutionBaseError
		? cause
		: new NodeApiError(node, cause as JsonObject, { itemIndex: context.itemIndex });
}
