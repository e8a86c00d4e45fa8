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
import { isObject } from '../transport/answers';
import { type OperationWording, requestError } from '../transport/errors';
import { throwErrorStatus } from '../transport/failures';
import { sendWithRetries, type WriteReadBack } from '../transport/retries';
import {
	authenticationOf,
	credentialSecrets,
	credentialTypeFor,
} from '../transport/credentialChoice';
import { DEFAULT_TIMEOUT_MS, prepareRequest } from '../transport/request';
import { executionPacer } from './execution';
import { type RecordKind, shaperOf } from './output';
import { fieldNameOf, recordIdOf, recordUrl, type RecordParameter } from './records';

export const requestDefaults = {
	baseURL: '={{ $credentials.baseUrl }}',
	headers: { ...SERVICE_HEADERS },
	json: true,
};

// A value to set, not "raise": n8n fills a new 'Timeout' with 10000, below the node's 30000.
const timeoutSetting = (waitedMs: number) =>
	`set 'Timeout' under 'Request Options' in the node's settings to ${waitedMs * 2} (milliseconds; it waited ${waitedMs})`;

function timeoutOf(context: IExecuteSingleFunctions): number {
	const timeout = context.getNodeParameter('requestOptions.timeout', 0);
	return typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS;
}

async function prepareServiceRequest(this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	prepareRequest(options, this.getNode(), authenticationOf(this));
	options.timeout = timeoutOf(this);
	return options;
}

/** An error status that came back (API key requests) is thrown; a success's rate-limit headers go to the pace, and it keeps its headers. */
async function failOnErrorStatus(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) {
	throwErrorStatus(response);
	const headers = (response.headers ?? {}) as IDataObject;
	(await executionPacer(this)).heard(headers);
	return items.map((item) => ({ ...item, headers }));
}

interface ErrorSubject {
	record?: RecordParameter;
	wording?: OperationWording;
}

export async function operationError(
	context: IExecuteSingleFunctions,
	error: unknown,
	{ record, wording }: ErrorSubject = {},
): Promise<ExecutionBaseError> {
	const authentication = authenticationOf(context);
	const credentials = await context.getCredentials(credentialTypeFor(authentication));
	const timeoutMs = timeoutOf(context);
	return requestError(context.getNode(), error, {
		authentication,
		itemIndex: context.getItemIndex(),
		secrets: credentialSecrets(credentials),
		tokenUrl: credentials.accessTokenUrl,
		timeoutMs,
		timeoutSetting: timeoutSetting(timeoutMs),
		wording,
		record: record && {
			label: record.label,
			parameter: fieldNameOf(context.getNode(), record),
			id: String(recordIdOf(context, record)).trim(),
		},
	});
}

/** How every operation sends; a write that may have acted is resent only if `readBack` allows. */
export async function routedSend(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	readBack?: () => Promise<WriteReadBack<INodeExecutionData[]>>,
): Promise<INodeExecutionData[]> {
	const pacing = {
		pacer: await executionPacer(context),
		signal: context.getExecutionCancelSignal(),
	};
	return await sendWithRetries(
		async () => await context.makeRoutingRequest(requestData),
		requestData.options.method ?? 'GET',
		pacing,
		readBack,
	);
}

export function recordIn(answer: INodeExecutionData | undefined): IDataObject {
	const record = (answer?.json as IDataObject | undefined)?.data;
	return isObject(record) ? record : {};
}

interface RecordRead {
	path: string;
	record?: RecordParameter;
	kind: RecordKind;
}

// Only a pagination function can catch what a request throws: a read "paginates" its one request.
export function recordRouting({ path, record, kind }: RecordRead): INodePropertyRouting {
	async function readRecord(
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		try {
			const [answer] = await routedSend(this, requestData);
			return [{ json: shaperOf(this, kind)(recordIn(answer)) }];
		} catch (error) {
			throw await operationError(this, error, { record });
		}
	}
	return paginationRouting({ method: 'GET', url: path }, readRecord, record);
}

export function routedRequest(
	requestData: DeclarativeRestApiSettings.ResultOptions,
	options: Partial<IHttpRequestOptions>,
): DeclarativeRestApiSettings.ResultOptions {
	return { ...requestData, options: { ...requestData.options, ...options } };
}

// Each request answers the whole body: makeRoutingRequest runs postReceive on every request.
export function paginationRouting(
	request: { method: IHttpRequestMethods; url: string },
	pagination: (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	) => Promise<INodeExecutionData[]>,
	record?: RecordParameter,
): INodePropertyRouting {
	const preSend = [prepareServiceRequest, ...(record ? [recordUrl(request.url, record)] : [])];
	return {
		request,
		send: { paginate: true, preSend },
		output: { postReceive: [failOnErrorStatus] },
		operations: { pagination },
	};
}
