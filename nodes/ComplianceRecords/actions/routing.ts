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

import { serviceError } from '../transport/errors';
import { pages, type ListPage } from '../transport/paging';
import { credentialTypeFor, type Authentication } from '../transport/authentication';
import { applyServiceRules, credentialSecrets, SERVICE_HEADERS } from '../transport/request';
import { isSimplifyOn, simplifyOutput, simplifyRecord, type RecordKind } from './simplify';
import { checkId, checkLimit } from './validation';

/**
 * How the declarative operations use the rules of `transport/` inside n8n's routing: request
 * defaults, a preSend step that applies the service's rules to every request, and a postReceive
 * step that turns an error status into the mapped error.
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

function checkServiceResponse(record?: RecordParameter): PostReceiveAction {
	return async function (
		this: IExecuteSingleFunctions,
		items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		if (response.statusCode < 400) return items;
		const authentication = this.getNodeParameter('authentication', 'apiKey') as Authentication;
		const credentials = await this.getCredentials(credentialTypeFor(authentication));
		throw serviceError(
			this.getNode(),
			{ status: response.statusCode, body: response.body, headers: response.headers },
			{
				authentication,
				itemIndex: this.getItemIndex(),
				secrets: credentialSecrets(credentials),
				record: record && {
					label: record.label,
					id: String(this.getNodeParameter(record.idParameter, '')).trim(),
				},
			},
		);
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
			preSend: [prepareServiceRequest, ...(record ? [recordUrl(path, record)] : [])],
		},
		output: {
			postReceive: [
				checkServiceResponse(record),
				{ type: 'rootProperty', properties: { property: 'data' } },
				simplifyOutput(simplify),
			],
		},
	};
}

/**
 * Which records of a list to keep, decided by the node's parameters before the first page (so
 * their mistakes are reported before any request); undefined keeps every record.
 */
export type ListFilter = (this: IExecuteSingleFunctions) => ((record: IDataObject) => boolean) | undefined;

/**
 * The `pagination` of every Get Many operation, run by n8n's declarative routing: Return All or
 * Limit decide how many records; each page is requested through n8n (`makeRoutingRequest`) and
 * every record kept becomes one output item, flat with Simplify on. With a filter that the
 * service cannot apply, every page is of the largest size and paging stops once Limit records
 * have passed the filter.
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
		const query = { ...requestData.options.qs };
		const items: INodeExecutionData[] = [];
		const fetchPage = async ({ limit, cursor }: { limit: number; cursor?: string }) => {
			requestData.options.qs = { ...query, limit, ...(cursor !== undefined && { cursor }) };
			const [response] = await this.makeRoutingRequest(requestData);
			return response.json as unknown as ListPage;
		};
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
		output: { postReceive: [checkServiceResponse()] },
		operations: { pagination: paginateByCursor(kind, filter) },
	};
}
