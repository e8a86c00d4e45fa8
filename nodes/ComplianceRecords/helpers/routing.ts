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
	INodePropertyRouting,
} from 'n8n-workflow';

import { SERVICE_HEADERS } from '../../../shared/service';
import { type OperationWording, requestError } from '../transport/errors';
import { throwErrorStatus } from '../transport/failures';
import { sendWithRetries } from '../transport/pacing';
import {
	authenticationOf,
	credentialSecrets,
	credentialTypeFor,
	DEFAULT_TIMEOUT_MS,
	prepareRequest,
} from '../transport/request';
import { executionPacer } from './execution';
import { shapedOutputStep, type RecordKind } from './output';
import { fieldNameOf, recordIdOf, recordUrl, type RecordParameter } from './records';

/**
 * The action node's requests on n8n's declarative routing: request defaults, one preSend step
 * with the service's rules, and each operation's pagination function, which sends through n8n's
 * `makeRoutingRequest` and explains any failure once (transport/errors.ts). Get Many: lists.ts.
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

/** An error status that came back (API key requests) goes to the pagination function's catch; rate-limit headers to the pace. */
async function failOnErrorStatus(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) {
	throwErrorStatus(response);
	(await executionPacer(this)).heard((response.headers ?? {}) as IDataObject);
	return items;
}

/** What an operation's errors name: the record it is about, and its resource's words. */
interface ErrorSubject {
	record?: RecordParameter;
	wording?: OperationWording;
}

/** Whatever a request of an operation threw, as the error the user sees. */
export async function operationError(
	context: IExecuteSingleFunctions,
	error: unknown,
	{ record, wording }: ErrorSubject = {},
): Promise<ExecutionBaseError> {
	const authentication = authenticationOf(context);
	const credentials = await context.getCredentials(credentialTypeFor(authentication));
	return requestError(context.getNode(), error, {
		authentication,
		itemIndex: context.getItemIndex(),
		secrets: credentialSecrets(credentials),
		tokenUrl: credentials.accessTokenUrl,
		timeoutMs: timeoutOf(context),
		timeoutAdvice: TIMEOUT_ADVICE,
		wording,
		record: record && {
			label: record.label,
			parameter: fieldNameOf(context.getNode(), record),
			id: String(recordIdOf(context, record)).trim(),
		},
	});
}

/**
 * One routed request through n8n's `makeRoutingRequest`, in the execution's pace and sent again
 * when the retry rules allow (transport/pacing.ts): the only way the operations send.
 */
export async function routedSend(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const pacing = {
		pacer: await executionPacer(context),
		signal: context.getExecutionCancelSignal(),
	};
	return await sendWithRetries(
		async () => await context.makeRoutingRequest(requestData),
		requestData.options.method ?? 'GET',
		pacing,
	);
}

/**
 * n8n's routing lets only a pagination function catch what a request throws (an error status,
 * a timeout), so an operation on one record "paginates" too, with its one request.
 */
function sendRecord(subject: ErrorSubject) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		try {
			return await routedSend(this, requestData);
		} catch (error) {
			throw await operationError(this, error, subject);
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
	/** What its errors say of the record (transport/errors.ts). */
	wording?: OperationWording;
}

/** Routing of an operation answering one record (`{ data: record }`): one output item. */
export function recordRouting({
	method,
	path,
	record,
	kind,
	wording,
}: RecordRouting): INodePropertyRouting {
	return {
		request: { method, url: path },
		send: {
			paginate: true,
			preSend: [prepareServiceRequest, ...(record ? [recordUrl(path, record)] : [])],
		},
		output: {
			postReceive: [
				failOnErrorStatus,
				{ type: 'rootProperty', properties: { property: 'data' } },
				shapedOutputStep(kind),
			],
		},
		operations: { pagination: sendRecord({ record, wording }) },
	};
}

/** The same routed request with other options (another page, method, path or body). */
export function routedRequest(
	requestData: DeclarativeRestApiSettings.ResultOptions,
	options: Partial<IHttpRequestOptions>,
): DeclarativeRestApiSettings.ResultOptions {
	return { ...requestData, options: { ...requestData.options, ...options } };
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
