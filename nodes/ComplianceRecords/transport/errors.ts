import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

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
						description:
							'Access could not be renewed. Open the Compliance Records OAuth2 credential and reconnect it.',
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

/** Turns a service error response into the error the user sees, including the service's `message`. */
export function serviceError(
	node: INode,
	failure: ServiceFailure,
	context: ServiceErrorContext,
): NodeApiError {
	const said = redact(serviceMessage(failure), context.secrets ?? []);
	const { message, description } = explain(failure, said, context);
	return new NodeApiError(node, { message: said, status: failure.status } as JsonObject, {
		message,
		description,
		httpCode: String(failure.status),
		itemIndex: context.itemIndex,
	});
}
