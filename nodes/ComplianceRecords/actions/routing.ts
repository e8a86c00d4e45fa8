import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodePropertyRouting,
	PostReceiveAction,
	PreSendAction,
} from 'n8n-workflow';

import { requestError, serviceError, type ServiceErrorContext } from '../transport/errors';
import { pages, type ListPage } from '../transport/paging';
import { credentialTypeFor, type Authentication } from '../transport/authentication';
import { alreadyRead, applyServiceRules, credentialSecrets, SERVICE_HEADERS } from '../transport/request';
import { isSimplifyOn, simplifyOutput, simplifyRecord, type RecordKind } from './simplify';
import { checkId, checkLimit } from './validation';

/**
 * How the declarative operations use the rules of `transport/` inside n8n's routing: request
 * defaults, a preSend step that applies the service's rules to every request, a check that
 * turns an error status coming back into the mapped error (a postReceive step; Get Many's paging
 * runs it), and a `pagination` function around every request that does the same for an error
 * status n8n throws (OAuth2 requests, see transport/request.ts).
 */

export const requestDefaults = {
	baseURL: '={{ $credentials.baseUrl }}',
	headers: { ...SERVICE_HEADERS },
	json: true,
};

/** Runs before every request: base URL checked and trimmed, version header, status handling. */
export async function prepareServiceRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const authentication = this.getNodeParameter('authentication', 'apiKey') as Authentication;
	return applyServiceRules(requestOptions, authentication, this.getNode());
}

/** Which record an operation is about, for "not found": the label and the ID parameter. */
interface RecordParameter {
	label: string;
	idParameter: string;
}

/** What a service error of an operation names and hides: its record, its item, the credential's secrets. */
async function errorContext(context: IExecuteSingleFunctions, record?: RecordParameter): Promise<ServiceErrorContext> {
	const authentication = context.getNodeParameter('authentication', 'apiKey') as Authentication;
	const credentials = await context.getCredentials(credentialTypeFor(authentication));
	return {
		authentication,
		itemIndex: context.getItemIndex(),
		secrets: credentialSecrets(credentials),
		record: record && {
			label: record.label,
			id: String(context.getNodeParameter(record.idParameter, '')).trim(),
		},
	};
}

/**
 * Throws the error the user sees for an error status that came back as a response (API key
 * requests); a success passes. The credential is read only then, for the secrets an error must
 * not show.
 */
async function checkStatus(
	context: IExecuteSingleFunctions,
	response: IN8nHttpFullResponse,
	record?: RecordParameter,
): Promise<void> {
	if (response.statusCode < 400) return;
	throw serviceError(
		context.getNode(),
		{ status: response.statusCode, body: response.body, headers: response.headers },
		await errorContext(context, record),
	);
}

function checkServiceResponse(record?: RecordParameter): PostReceiveAction {
	return async function (
		this: IExecuteSingleFunctions,
		items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		await checkStatus(this, response, record);
		return items;
	};
}

/**
 * n8n's declarative routing hands a request to the operation's `pagination` function, when it
 * has one, instead of sending it itself: the only place where what a routed request throws can
 * be caught. So every operation has one; an operation on one record sends once, with n8n's
 * `makeRoutingRequest` (which runs the postReceive steps).
 */
function sendOnce(record?: RecordParameter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		try {
			return await this.makeRoutingRequest(requestData);
		} catch (error) {
			throw requestError(this.getNode(), error, await errorContext(this, record));
		}
	};
}

/** The path of one record, its ID checked and URL-encoded so it cannot reach another path. */
function recordUrl(collectionPath: string, record: RecordParameter): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const id = checkId(this.getNodeParameter(record.idParameter, ''), `${record.label} ID`, {
			node: this.getNode(),
			itemIndex: this.getItemIndex(),
		});
		requestOptions.url = `${collectionPath}/${encodeURIComponent(id)}`;
		return requestOptions;
	};
}

interface OperationRouting {
	method: IHttpRequestMethods;
	/** The collection's path, e.g. `/clients`. */
	path: string;
	/** For operations on one record: its label and the parameter holding its ID. */
	record?: RecordParameter;
	/** The flat record the operation outputs with Simplify on. */
	simplify: RecordKind;
}

/**
 * Routing of an operation answering one record (`{ data: record }`): one output item. Its
 * fields add their own checks (preSend) after these.
 */
export function recordRouting({ method, path, record, simplify }: OperationRouting): INodePropertyRouting {
	return {
		request: { method, url: path },
		send: {
			paginate: true,
			preSend: [prepareServiceRequest, ...(record ? [recordUrl(path, record)] : [])],
		},
		output: {
			postReceive: [
				checkServiceResponse(record),
				{ type: 'rootProperty', properties: { property: 'data' } },
				simplifyOutput(simplify),
			],
		},
		operations: { pagination: sendOnce(record) },
	};
}

/**
 * Which records of a list to keep, decided by the node's parameters before the first page (so
 * their mistakes are reported before any request); undefined keeps every record.
 */
export type ListFilter = (this: IExecuteSingleFunctions) => ((record: IDataObject) => boolean) | undefined;

/**
 * The `pagination` of every Get Many operation, run by n8n's declarative routing: Return All or
 * Limit decide how many records; every record kept becomes one output item, flat with Simplify
 * on. With a filter that the service cannot apply, every page is of the largest size and paging
 * stops once Limit records have passed the filter. Each page is requested with the options n8n's
 * routing prepared, through n8n's `httpRequestWithAuthentication`, with the credential read
 * once for all pages (`makeRoutingRequest` would have n8n read it again for every page).
 */
function paginateByCursor(kind: RecordKind, filter?: ListFilter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		const wanted = this.getNodeParameter('returnAll', false)
			? Infinity
			: checkLimit(this.getNodeParameter('limit', 50), { node: this.getNode(), itemIndex: this.getItemIndex() });
		const keep = filter?.call(this);
		const simplify = isSimplifyOn(this);
		const authentication = this.getNodeParameter('authentication', 'apiKey') as Authentication;
		const credentialType = credentialTypeFor(authentication);
		const credential = alreadyRead(this.getNode(), credentialType, await this.getCredentials(credentialType));
		// Complete once the routing ran: `listRouting` gives every list its `url`.
		const options = requestData.options as IHttpRequestOptions;
		const fetchPage = async ({ limit, cursor }: { limit: number; cursor?: string }) => {
			const qs = { ...options.qs, limit, ...(cursor !== undefined && { cursor }) };
			let response: IN8nHttpFullResponse;
			try {
				response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					credentialType,
					{ ...options, qs, returnFullResponse: true },
					credential,
				)) as IN8nHttpFullResponse;
			} catch (error) {
				throw requestError(this.getNode(), error, await errorContext(this));
			}
			await checkStatus(this, response);
			return response.body as ListPage;
		};
		const items: INodeExecutionData[] = [];
		paging: for await (const { records } of pages(fetchPage, { wanted: keep ? Infinity : wanted })) {
			for (const record of records) {
				if (keep && !keep(record)) continue;
				items.push({ json: simplify ? (simplifyRecord(kind, record) as IDataObject) : record });
				if (items.length >= wanted) break paging;
			}
		}
		return items;
	};
}

/** Routing of a Get Many operation: cursor paging, one output item per record (kept by `filter`). */
export function listRouting(path: string, kind: RecordKind, filter?: ListFilter): INodePropertyRouting {
	return {
		request: { method: 'GET', url: path },
		send: { paginate: true, preSend: [prepareServiceRequest] },
		operations: { pagination: paginateByCursor(kind, filter) },
	};
}
