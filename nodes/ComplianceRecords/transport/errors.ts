import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Authentication } from './authentication';

/** The record a request was about, so "not found" can name it: `{ label: 'Client', id }`. */
export interface RecordRef {
	label: string;
	id: string;
}

/** An HTTP answer with an error status, as received. */
export interface ServiceFailure {
	status: number;
	body: unknown;
	headers?: IDataObject;
}

export interface ServiceErrorContext {
	authentication: Authentication;
	record?: RecordRef;
	itemIndex?: number;
	/** Credential values to hide should the service ever echo one back. */
	secrets?: string[];
}

const HIDDEN = '**hidden**';

const OAUTH2_RECONNECT =
	'Access could not be renewed. Open the Compliance Records OAuth2 credential and reconnect it.';

function redact(text: string, secrets: string[]): string {
	let redacted = text.replace(/Bearer\s+[\w.~+/=-]+/gi, `Bearer ${HIDDEN}`);
	for (const secret of secrets) redacted = redacted.split(secret).join(HIDDEN);
	return redacted;
}

/** Every error body of the service is `{ "message": "..." }`; anything else is summarised. */
function serviceMessage(failure: ServiceFailure): string {
	const { body } = failure;
	if (body && typeof body === 'object' && typeof (body as IDataObject).message === 'string') {
		return (body as IDataObject).message as string;
	}
	if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300);
	return `HTTP ${failure.status} with no message`;
}

function retryAfterSeconds(headers: IDataObject | undefined): number | undefined {
	const value = Number(headers?.['retry-after']);
	return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function explain(
	failure: ServiceFailure,
	said: string,
	context: ServiceErrorContext,
): { message: string; description: string } {
	const { status } = failure;
	const { record } = context;
	switch (status) {
		case 400:
			return {
				message: `The service rejected the request: ${said}`,
				description: 'Correct the field the service names and run the node again.',
			};
		case 401:
			return context.authentication === 'oAuth2'
				? {
						message: `The service refused the OAuth2 connection: ${said}`,
						description: OAUTH2_RECONNECT,
					}
				: {
						message: `The service refused the API key: ${said}`,
						description:
							"The key is invalid, expired or revoked. Generate a new key in the service's web app (firm settings, API services) and paste it into the Compliance Records API credential.",
					};
		case 403:
			return {
				message: `This credential may not do this: ${said}`,
				description:
					'The API key may be read-only, or the connected user may lack the permission. Use a credential allowed to make changes.',
			};
		case 404:
			return record
				? {
						message: `${record.label} "${record.id}" was not found: ${said}`,
						description: `Check the ${record.label} ID: it may be mistyped, or belong to another firm than the credential's.`,
					}
				: { message: `Not found: ${said}`, description: "Check the credential's Base URL." };
		case 409:
			return {
				message: `The reference number is already in use: ${said}`,
				description:
					'Another client of the firm already has this reference number. Use a different Reference Number.',
			};
		case 429: {
			const wait = retryAfterSeconds(failure.headers);
			return {
				message: `The service is receiving too many requests: ${said}`,
				description: `${wait === undefined ? 'Wait a moment' : `Wait ${wait} seconds`} and run again, or turn on Retry On Fail in the node's settings.`,
			};
		}
		default:
			return status >= 500
				? {
						message: `The service failed to process the request (HTTP ${status}): ${said}`,
						description:
							"This is a problem on the service's side. Try again later, or turn on Retry On Fail in the node's settings.",
					}
				: {
						message: `The service answered HTTP ${status}: ${said}`,
						description: 'Check the parameters and the credential, then run again.',
					};
	}
}

/** The errors made here: what n8n throws is explained once, never again when passed on. */
const explained = new WeakSet<object>();

/** Turns a service error response into the error the user sees, including the service's `message`. */
export function serviceError(
	node: INode,
	failure: ServiceFailure,
	context: ServiceErrorContext,
): NodeApiError {
	const said = redact(serviceMessage(failure), context.secrets ?? []);
	const { message, description } = explain(failure, said, context);
	const error = new NodeApiError(node, { message: said, status: failure.status } as JsonObject, {
		message,
		description,
		httpCode: String(failure.status),
		itemIndex: context.itemIndex,
	});
	explained.add(error);
	return error;
}

/** What n8n's error wrapping keeps of a request's failure; it differs between n8n lines. */
interface ThrownError {
	message?: unknown;
	/** What the request threw: n8n 2.x keeps it; 1.x drops it (its error classes reset `cause`). */
	cause?: { code?: unknown; body?: { error?: unknown }; response?: { status?: unknown; data?: unknown; headers?: IDataObject } };
	/** The status (or error code) n8n found in what was thrown. */
	httpCode?: unknown;
	/** The response body, when it was a JSON object. */
	context?: { data?: unknown };
}

/**
 * The service's answer inside an error n8n threw for an error status; undefined when the request
 * got no answer. n8n 2.x keeps the HTTP client's error with its response; n8n 1.x keeps only the
 * status and the body (so no Retry-After).
 */
function failureIn(error: ThrownError): ServiceFailure | undefined {
	const response = error.cause?.response;
	const status = Number(response?.status ?? error.httpCode);
	if (!Number.isInteger(status) || status < 400) return undefined;
	return response ? { status, body: response.data, headers: response.headers } : { status, body: error.context?.data };
}

/**
 * Whether n8n's OAuth2 client failed to renew the token: the authorization server refused it
 * (its error carries the code EAUTH; n8n 1.x keeps only that code, 2.x the whole error).
 */
function refusedRefresh(error: ThrownError): boolean {
	return error.httpCode === 'EAUTH' || (error.cause?.code === 'EAUTH' && typeof error.cause.body?.error === 'string');
}

/**
 * Turns what n8n threw for a request into the error the user sees: an error status of the
 * service is mapped like a returned one; a refused OAuth2 refresh asks to reconnect (n8n 2.x
 * already says so itself when the grant was revoked; 1.x shows the token endpoint's bare
 * error); anything else (no answer at all, such as a refused connection) keeps n8n's wording.
 */
export function requestError(
	node: INode,
	error: unknown,
	context: ServiceErrorContext,
): NodeApiError | NodeOperationError {
	// Already explained: our own errors and checks, and n8n 2.x's "reconnect the credential".
	if (error instanceof NodeOperationError || explained.has(error as object)) return error as NodeApiError;
	const thrown = error as ThrownError;
	const failure = failureIn(thrown);
	if (failure) return serviceError(node, failure, context);
	if (context.authentication === 'oAuth2' && refusedRefresh(thrown)) {
		const refusal = new NodeApiError(node, { message: String(thrown.message) } as JsonObject, {
			message: `The service refused the OAuth2 connection: ${redact(String(thrown.message), context.secrets ?? [])}`,
			description: OAUTH2_RECONNECT,
			itemIndex: context.itemIndex,
		});
		explained.add(refusal);
		return refusal;
	}
	return new NodeApiError(node, error as JsonObject, { itemIndex: context.itemIndex });
}
