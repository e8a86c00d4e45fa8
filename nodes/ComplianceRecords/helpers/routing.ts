import type {
	DeclarativeRestApiSettings,
	ExecutionBaseError,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeParameterResourceLocator,
	INodePropertyRouting,
	NodeOperationError,
	PreSendAction,
} from 'n8n-workflow';

import { SERVICE_HEADERS } from '../../../shared/service';
import { credentialTypeFor } from '../transport/credentials';
import { requestError, throwErrorStatus } from '../transport/errors';
import { itemError } from '../transport/itemError';
import { sendWithRetries } from '../transport/pacing';
import { listPageOf, pages, type FetchPage } from '../transport/paging';
import { authenticationOf, credentialSecrets, DEFAULT_TIMEOUT_MS, prepareRequest } from '../transport/request';
import { checkId, checkLimit, MAX_OUTPUT_ITEMS } from './checks';
import { executionPacer } from './execution';
import { outputStep, type RecordKind, recordOutput } from './output';
import { fieldNameOf, idInRecordUrl, type RecordParameter } from './records';

/**
 * The action node's requests on n8n's declarative routing: request defaults, one preSend step
 * with the service's rules, and each operation's pagination function, which sends through n8n's
 * `makeRoutingRequest` and explains any failure once (transport/errors.ts).
 */

export const requestDefaults = {
	baseURL: '={{ $credentials.baseUrl }}',
	headers: { ...SERVICE_HEADERS },
	json: true,
};

const TIMEOUT_ADVICE =
	"If it is only slow, raise 'Timeout' under 'Request Options' in the node's settings, or turn on 'Retry On Fail'.";

/** n8n's Request Options > Timeout when the user set one; else the package's, not n8n's 300 s. */
function timeoutOf(context: IExecuteSingleFunctions): number {
	const timeout = context.getNodeParameter('requestOptions.timeout', 0);
	return typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS;
}

async function prepareServiceRequest(this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	prepareRequest(options, this.getNode(), authenticationOf(this));
	options.timeout = timeoutOf(this);
	return options;
}

/** An error status that came back (API key requests) goes to the pagination function's catch. */
async function failOnErrorStatus(this: IExecuteSingleFunctions, items: INodeExecutionData[], response: IN8nHttpFullResponse) {
	throwErrorStatus(response);
	return items;
}

/**
 * The ID the user gave for the record, whatever the node's version and the picker's mode. A URL
 * is read here rather than by n8n's extractValue, whose refusal ("ERROR: Client parameter's value
 * is invalid...") names no item and says nothing of what to paste.
 */
function recordIdOf(context: IExecuteSingleFunctions, record: RecordParameter): unknown {
	// What n8n's extractValue takes for a picker's value: any object with a mode and a value.
	const given = context.getNodeParameter(record.parameter, '') as Partial<INodeParameterResourceLocator>;
	if (typeof given === 'object' && given?.mode === 'url') {
		return idInRecordUrl(given.value, record, context.getNode(), context.getItemIndex());
	}
	return context.getNodeParameter(record.parameter, '', { extractValue: true });
}

/** Whatever a request of an operation threw, as the error the user sees. */
export async function operationError(
	context: IExecuteSingleFunctions,
	error: unknown,
	record?: RecordParameter,
): Promise<ExecutionBaseError> {
	const authentication = authenticationOf(context);
	const credentials = await context.getCredentials(credentialTypeFor(authentication));
	return requestError(context.getNode(), error, {
		authentication,
		itemIndex: context.getItemIndex(),
		secrets: credentialSecrets(credentials),
		timeoutMs: timeoutOf(context),
		timeoutAdvice: TIMEOUT_ADVICE,
		record: record && {
			label: record.label,
			parameter: fieldNameOf(context.getNode(), record),
			id: String(recordIdOf(context, record)).trim(),
		},
	});
}

/** The path of one record, its ID checked and URL-encoded so it cannot reach another path. */
function recordUrl(collectionPath: string, record: RecordParameter): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const id = checkId(recordIdOf(this, record), fieldNameOf(this.getNode(), record), {
			node: this.getNode(),
			itemIndex: this.getItemIndex(),
		});
		requestOptions.url = `${collectionPath}/${encodeURIComponent(id)}`;
		return requestOptions;
	};
}

/**
 * One routed request through n8n's `makeRoutingRequest`, in the execution's pace and sent again
 * when the retry rules allow (transport/pacing.ts): the only way the operations send.
 */
export async function routedSend(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const pacing = { pacer: await executionPacer(context), signal: context.getExecutionCancelSignal() };
	return await sendWithRetries(async () => await context.makeRoutingRequest(requestData), requestData.options.method ?? 'GET', pacing);
}

/**
 * n8n's routing lets only a pagination function catch what a request throws (an error status,
 * a timeout), so an operation on one record "paginates" too, with its one request.
 */
function sendRecord(record?: RecordParameter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		try {
			return await routedSend(this, requestData);
		} catch (error) {
			throw await operationError(this, error, record);
		}
	};
}

interface RecordRouting {
	method: IHttpRequestMethods;
	/** The collection's path, e.g. `/clients`. */
	path: string;
	/** For an operation on an existing record: which one. */
	record?: RecordParameter;
	/** What the operation outputs (Simplify). */
	kind: RecordKind;
}

/** Routing of an operation answering one record (`{ data: record }`): one output item. */
export function recordRouting({ method, path, record, kind }: RecordRouting): INodePropertyRouting {
	return {
		request: { method, url: path },
		send: {
			paginate: true,
			preSend: [prepareServiceRequest, ...(record ? [recordUrl(path, record)] : [])],
		},
		output: { postReceive: [failOnErrorStatus, { type: 'rootProperty', properties: { property: 'data' } }, outputStep(kind)] },
		operations: { pagination: sendRecord(record) },
	};
}

/** The same routed request with other options (another page, method, path or body). */
export function routedRequest(
	requestData: DeclarativeRestApiSettings.ResultOptions,
	options: Partial<IHttpRequestOptions>,
): DeclarativeRestApiSettings.ResultOptions {
	return { ...requestData, options: { ...requestData.options, ...options } };
}

/** The pages of a list, each requested through n8n's routing (`makeRoutingRequest`). */
export function routedPages(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	query: IDataObject = {},
): FetchPage {
	return async ({ limit, cursor }) => {
		const qs = { ...query, limit, ...(cursor !== undefined && { cursor }) };
		const [answer] = await routedSend(context, routedRequest(requestData, { qs }));
		return listPageOf(context.getNode(), answer?.json, context.getItemIndex());
	};
}

/**
 * Which records of a list to keep, decided by the node's parameters before the first page (so
 * their mistakes are reported before any request); undefined keeps every record.
 */
type ListFilter = (this: IExecuteSingleFunctions) => ((record: IDataObject) => boolean) | undefined;

const PLURAL: Partial<Record<RecordKind, string>> = {
	clientListItem: 'clients',
	individual: 'individuals',
	organisation: 'organisations',
};

function tooManyToOutput(context: IExecuteSingleFunctions, kind: RecordKind, total?: number): NodeOperationError {
	const many = PLURAL[kind] ?? 'records';
	const limit = MAX_OUTPUT_ITEMS.toLocaleString('en-US');
	const count = total === undefined ? `More than ${limit} ${many} match` : `The firm has ${total.toLocaleString('en-US')} ${many}`;
	const message = `${count}: more than n8n can output from one run of a node (${limit})`;
	return itemError(
		context.getNode(),
		context.getItemIndex(),
		message,
		`n8n hands a node's items on in one step that holds about 120,000 at most, so the node stops at ${limit} before reading them all. Narrow the list with a filter, or turn off 'Return All' and set 'Limit'. To act on each change as it happens, use the Compliance Records Trigger.`,
	);
}

/** Every Get Many: Return All or Limit records (those a filter keeps, when the service cannot filter), one item each. */
function pageList(kind: RecordKind, filter?: ListFilter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		const wanted = this.getNodeParameter('returnAll', false)
			? Infinity
			: checkLimit(this.getNodeParameter('limit', 50), { node: this.getNode(), itemIndex: this.getItemIndex() });
		const keep = filter?.call(this);
		const output = recordOutput(this, kind);
		const items: INodeExecutionData[] = [];
		try {
			const listed = pages(routedPages(this, requestData, requestData.options.qs), { wanted: keep ? Infinity : wanted });
			paging: for await (const { records, total } of listed) {
				if (!keep && wanted > MAX_OUTPUT_ITEMS && total !== undefined && total > MAX_OUTPUT_ITEMS) {
					throw tooManyToOutput(this, kind, total);
				}
				for (const record of records) {
					if (keep && !keep(record)) continue;
					if (items.length === MAX_OUTPUT_ITEMS) throw tooManyToOutput(this, kind, keep ? undefined : total);
					items.push({ json: output(record) });
					if (items.length >= wanted) break paging;
				}
			}
		} catch (error) {
			throw await operationError(this, error);
		}
		return items;
	};
}

/**
 * Routing of an operation whose pagination function sends its requests and makes its output
 * items itself: each request answers the service's whole body (`makeRoutingRequest` runs the
 * operation's postReceive steps on every request it sends, whatever its path).
 */
export function paginationRouting(
	request: { method: IHttpRequestMethods; url: string },
	pagination: (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	) => Promise<INodeExecutionData[]>,
): INodePropertyRouting {
	return {
		request,
		send: { paginate: true, preSend: [prepareServiceRequest] },
		output: { postReceive: [failOnErrorStatus] },
		operations: { pagination },
	};
}

/** Routing of a Get Many operation: cursor paging, one output item per record (kept by `filter`). */
export function listRouting(path: string, kind: RecordKind, filter?: ListFilter): INodePropertyRouting {
	return paginationRouting({ method: 'GET', url: path }, pageList(kind, filter));
}
