import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { insecureUrlProblem, SERVICE_HEADERS, trimmedUrl } from '../../../shared/service';
import { type ErrorContext, type RecordRef, requestError } from './errors';
import { throwErrorStatus } from './failures';
import { type Pacing, sendWithRetries } from './retries';
import {
	type Authentication,
	authenticationOf,
	credentialSecrets,
	credentialTypeFor,
	type ServiceContext,
} from './credentialChoice';

/* The rules every request gets, routed by n8n or sent by {@link serviceRequest}. */

/** How long a request may wait for the service, unless the user sets another (n8n's own default is 300 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;

function checkedBaseUrl(rawBaseUrl: unknown, node: INode): string {
	const baseUrl = trimmedUrl(rawBaseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(node, "The credential has no 'Base URL'", {
			description: "Open the credential and enter the service's API address in 'Base URL'.",
		});
	}
	const problem = insecureUrlProblem(baseUrl);
	if (problem)
		throw new NodeOperationError(node, "Insecure or invalid 'Base URL'", { description: problem });
	return baseUrl;
}

export function prepareRequest(
	options: IHttpRequestOptions,
	node: INode,
	authentication: Authentication,
): IHttpRequestOptions {
	options.baseURL = checkedBaseUrl(options.baseURL, node);
	options.headers = { ...options.headers, ...SERVICE_HEADERS };
	options.json = true;
	// n8n renews an OAuth2 token only when a 401 is thrown, and re-sends any request whose 401
	// was thrown: an API key cannot be renewed, so its error statuses come back (see ErrorStatus).
	options.ignoreHttpStatusErrors = authentication !== 'oAuth2';
	// n8n would hand the key or token to whatever origin a redirect names.
	options.sendCredentialsOnCrossOriginRedirect = false;
	return options;
}

/** The credential already read, so n8n does not decrypt it again; OAuth2 reads its own, to renew the token. */
function alreadyRead(
	node: INode,
	type: string,
	data: ICredentialDataDecryptedObject,
): IAdditionalCredentialOptions {
	const stored = node.credentials?.[type];
	return { credentialsDecrypted: { id: stored?.id ?? '', name: stored?.name ?? type, type, data } };
}

interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL; IDs in it must already be URL-encoded. */
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Names the record in a "not found" error. */
	record?: RecordRef;
	itemIndex?: number;
	timeoutMs?: number;
	/** The execution's pace, and how long the trigger's poll can wait (retries.ts). */
	pacing?: Pacing;
}

interface ServiceResponse {
	body: IDataObject;
	headers: IDataObject;
}

/** One request for what n8n's routing does not run (the trigger, dropdowns, lookups), with the retry rules. */
export async function serviceRequest(
	this: ServiceContext,
	request: ServiceRequest,
): Promise<ServiceResponse> {
	const node = this.getNode();
	const authentication = authenticationOf(this);
	const credentialType = credentialTypeFor(authentication);
	const credentials = await this.getCredentials(credentialType);
	const timeout = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const options = prepareRequest(
		{
			method: request.method,
			baseURL: credentials.baseUrl as string,
			url: request.url,
			qs: request.qs,
			body: request.body,
			timeout,
			returnFullResponse: true,
		},
		node,
		authentication,
	);
	const send = async () => {
		const response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			credentialType,
			options,
			alreadyRead(node, credentialType, credentials),
		)) as IN8nHttpFullResponse;
		throwErrorStatus(response);
		request.pacing?.pacer?.heard((response.headers ?? {}) as IDataObject);
		return response;
	};
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	try {
		const response = await sendWithRetries(send, request.method, { signal, ...request.pacing });
		return { body: response.body as IDataObject, headers: (response.headers ?? {}) as IDataObject };
	} catch (error) {
		const context: ErrorContext = {
			authentication,
			record: request.record,
			itemIndex: request.itemIndex,
			secrets: credentialSecrets(credentials),
			tokenUrl: credentials.accessTokenUrl,
			timeoutMs: timeout,
		};
		throw requestError(node, error, context);
	}
}
