import type {
	DeclarativeRestApiSettings,
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
import { applyServiceRules, credentialSecrets, SERVICE_HEADERS } from '../transport/request';
import { checkId, checkLimit } from './validation';

/**
 * How the declarative operations use the rules of `transport/` inside n8n's routing: request
 * defaults, a preSend step that applies the service's rules to every request, a postReceive
 * step that turns an error status coming back into the mapped error, and a `pagination`
 * function around every request that does the same for an error status n8n throws.
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

/** An error status that came back as a response (API key requests) becomes the mapped error. */
function checkServiceResponse(record?: RecordParameter): PostReceiveAction {
	return async function (
		this: IExecuteSingleFunctions,
		items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		if (response.statusCode < 400) return items;
		throw serviceError(
			this.getNode(),
			{ status: response.statusCode, body: response.body, headers: response.headers },
			await errorContext(this, record),
		);
	};
}

/**
 * Sends a routed request with n8n's `makeRoutingRequest` (which runs the postReceive steps); an
 * error status n8n throws (OAuth2 requests, see transport/request.ts) becomes the same mapped
 * error as one that comes back.
 */
async function send(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	record?: RecordParameter,
): Promise<INodeExecutionData[]> {
	try {
		return await context.makeRoutingRequest(requestData);
	} catch (error) {
		throw requestError(context.getNode(), error, await errorContext(context, record));
	}
}

/**
 * n8n's declarative routing hands a request to the operation's `pagination` function, when it
 * has one, instead of sending it itself: the only place where what a routed request throws can
 * be caught. So every operation has one; an operation on one record sends once.
 */
function sendOnce(record?: RecordParameter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		return await send(this, requestData, record);
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
}

/**
 * Routing of an operation answering one record (`{ data: record }`): one output item. Its
 * fields add their own checks (preSend) after these.
 */
export function recordRouting({ method, path, record }: OperationRouting): INodePropertyRouting {
	return {
		request: { method, url: path },
		send: {
			paginate: true,
			preSend: [prepareServiceRequest, ...(record ? [recordUrl(path, record)] : [])],
		},
		output: {
			postReceive: [checkServiceResponse(record), { type: 'rootProperty', properties: { property: 'data' } }],
		},
		operations: { pagination: sendOnce(record) },
	};
}

/**
 * The `pagination` of every Get Many operation, run by n8n's declarative routing: Return All or
 * Limit decide how many records; each page is requested through n8n (`makeRoutingRequest`) and
 * every record becomes one output item.
 */
async function paginateByCursor(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const wanted = this.getNodeParameter('returnAll', false)
		? Infinity
		: checkLimit(this.getNodeParameter('limit', 50), { node: this.getNode(), itemIndex: this.getItemIndex() });
	const query = { ...requestData.options.qs };
	const items: INodeExecutionData[] = [];
	const fetchPage = async ({ limit, cursor }: { limit: number; cursor?: string }) => {
		requestData.options.qs = { ...query, limit, ...(cursor !== undefined && { cursor }) };
		const [response] = await send(this, requestData);
		return response.json as unknown as ListPage;
	};
	for await (const { records } of pages(fetchPage, { wanted })) {
		for (const json of records) items.push({ json });
	}
	return items;
}

/** Routing of a Get Many operation: cursor paging, one output item per record. */
export function listRouting(path: string): INodePropertyRouting {
	return {
		request: { method: 'GET', url: path },
		send: { paginate: true, preSend: [prepareServiceRequest] },
		output: { postReceive: [checkServiceResponse()] },
		operations: { pagination: paginateByCursor },
	};
}
