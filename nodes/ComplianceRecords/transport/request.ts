import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialTypeFor, type Authentication } from './authentication';
import { requestError, serviceError, type RecordRef } from './errors';

/**
 * The one place for how this package talks to the Compliance Records Service. The declarative
 * node (through `routing.ts`), the trigger, the dropdown loaders and the API key credential all
 * use these rules, so the base URL, version header, insecure-URL refusal and error mapping
 * cannot drift apart.
 */

/** The only version the service accepts (spec §9). */
export const API_VERSION = '1.0.0';

export const SERVICE_HEADERS = {
	'accept-version': API_VERSION,
	accept: 'application/json',
} as const;

/**
 * Whether n8n returns error statuses as responses (true) or throws them (false); both are
 * mapped to the same errors (errors.ts). OAuth2 must throw: n8n refreshes an expired access
 * token only when a request throws with 401, then retries it. Only the boolean is read the same
 * by every n8n version: the object form `{ ignore: true, except: [401] }` is understood from
 * about n8n 2.10; n8n 1.x takes it for `true`, so a 401 never reaches the refresh. An API key
 * cannot be refreshed, so its 401 comes back to be explained, after one request.
 */
function statusErrorsReturnedFor(authentication: Authentication): boolean {
	return authentication !== 'oAuth2';
}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Why a URL must not receive credentials, or undefined when it may: anything but https, except
 * plain http to this machine (the local sandbox), would send the key or token in clear.
 */
export function insecureUrlProblem(url: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `"${url}" is not a valid URL. Enter the service's full base URL, e.g. https://api.example.com/v1.`;
	}
	if (parsed.protocol === 'https:') return undefined;
	if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return undefined;
	return `Refusing to send credentials to ${parsed.protocol}//${parsed.host}: only https:// is allowed (plain http:// only for localhost, 127.x.x.x or [::1]). Change the credential's Base URL to its https:// address.`;
}

/** A URL without surrounding spaces or trailing slashes: how every base URL is read. */
function trimmedUrl(url: unknown): string {
	return String(url ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/** The same rule inside an n8n expression, for credential fields computed from a URL field. */
export function trimmedUrlExpression(reference: string): string {
	return `String(${reference} ?? "").trim().replace(/\\/+$/, "")`;
}

/** The credential's base URL, trimmed and without trailing slashes, refused if insecure. */
function checkedBaseUrl(rawBaseUrl: unknown, node: INode): string {
	const baseUrl = trimmedUrl(rawBaseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(node, 'The credential has no Base URL', {
			description: "Open the credential and enter the service's base URL.",
		});
	}
	const problem = insecureUrlProblem(baseUrl);
	if (problem) throw new NodeOperationError(node, 'Insecure or invalid Base URL', { description: problem });
	return baseUrl;
}

/** Applies the service's rules to a request about to be sent, whichever path built it. */
export function applyServiceRules<T extends Pick<IHttpRequestOptions, 'baseURL' | 'headers'>>(
	options: T & Pick<IHttpRequestOptions, 'ignoreHttpStatusErrors' | 'json' | 'sendCredentialsOnCrossOriginRedirect'>,
	authentication: Authentication,
	node: INode,
): T {
	options.baseURL = checkedBaseUrl(options.baseURL, node);
	options.headers = { ...options.headers, ...SERVICE_HEADERS };
	options.json = true;
	options.ignoreHttpStatusErrors = statusErrorsReturnedFor(authentication);
	// n8n follows redirects and, by default, sends the credential along to any origin: a redirect
	// must never hand the key or token to another host.
	options.sendCredentialsOnCrossOriginRedirect = false;
	return options;
}

/** Values that must never reach an error message, whatever the service echoes back. */
export function credentialSecrets(credentials: ICredentialDataDecryptedObject): string[] {
	const token = (credentials.oauthTokenData ?? {}) as IDataObject;
	return [credentials.apiKey, credentials.clientSecret, token.access_token, token.refresh_token].filter(
		(value): value is string => typeof value === 'string' && value.length > 0,
	);
}

/**
 * Hands n8n a credential the node has already read, for `httpRequestWithAuthentication`.
 * Without it, n8n reads the credential again for every request (in n8n: loads it from the
 * database and decrypts it), which a listing pays on every page. n8n still applies the
 * credential's `authenticate`; OAuth2 requests read the credential themselves, so that n8n can
 * refresh the token.
 */
export function alreadyRead(
	node: INode,
	type: string,
	data: ICredentialDataDecryptedObject,
): IAdditionalCredentialOptions {
	const stored = node.credentials?.[type];
	return { credentialsDecrypted: { id: stored?.id ?? '', name: stored?.name ?? type, type, data } };
}

type ServiceContext = IExecuteFunctions | IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions;

function authenticationOf(context: ServiceContext): Authentication {
	// IExecuteFunctions reads parameters per item; authentication is the same for all.
	const value =
		'getInputData' in context && !('getItemIndex' in context)
			? context.getNodeParameter('authentication', 0, 'apiKey')
			: (context as IExecuteSingleFunctions).getNodeParameter('authentication', 'apiKey');
	return value as Authentication;
}

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL; IDs in it must already be URL-encoded. */
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Names the record in a "not found" error. */
	record?: RecordRef;
	itemIndex?: number;
	/** Milliseconds before the request is abandoned (n8n's default otherwise: 300 s). */
	timeout?: number;
}

/** A successful answer: its body, and its headers (names in lower case). */
export interface ServiceResponse {
	body: IDataObject;
	headers: IDataObject;
}

/**
 * Sends one request with the credential chosen in the node's `authentication` parameter and
 * returns the response body; failures become the same errors the declarative operations give.
 * For code paths n8n's declarative routing does not cover: the trigger, dropdown loaders and the
 * firm record that names given by expression are looked up in.
 */
export async function serviceRequest(this: ServiceContext, request: ServiceRequest): Promise<IDataObject> {
	return (await serviceResponse.call(this, request)).body;
}

/** {@link serviceRequest}, with the response's headers too (the trigger reads `Date`). */
export async function serviceResponse(this: ServiceContext, request: ServiceRequest): Promise<ServiceResponse> {
	const node = this.getNode();
	const authentication = authenticationOf(this);
	const credentialType = credentialTypeFor(authentication);
	const credentials = await this.getCredentials(credentialType);
	const options = applyServiceRules<IHttpRequestOptions>(
		{
			method: request.method,
			baseURL: credentials.baseUrl as string,
			url: request.url,
			qs: request.qs,
			body: request.body,
			timeout: request.timeout,
			returnFullResponse: true,
		},
		authentication,
		node,
	);
	const errorContext = {
		authentication,
		record: request.record,
		itemIndex: request.itemIndex,
		secrets: credentialSecrets(credentials),
	};

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			credentialType,
			options,
			alreadyRead(node, credentialType, credentials),
		)) as IN8nHttpFullResponse;
	} catch (error) {
		throw requestError(node, error, errorContext);
	}
	if (response.statusCode >= 400) {
		throw serviceError(
			node,
			{ status: response.statusCode, body: response.body, headers: response.headers },
			errorContext,
		);
	}
	return { body: response.body as IDataObject, headers: (response.headers ?? {}) as IDataObject };
}
