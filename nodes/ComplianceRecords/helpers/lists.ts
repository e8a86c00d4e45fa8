import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyRouting,
	NodeOperationError,
} from 'n8n-workflow';

import { itemError } from '../transport/errors';
import { type FetchPage, listPageOf, pages } from '../transport/paging';
import { checkLimit, MAX_OUTPUT_ITEMS } from './checks';
import { type RecordKind, shaperOf } from './output';
import { operationError, paginationRouting, routedRequest, routedSend } from './routing';

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

/** Made before the first page, so that a parameter's mistake is reported before any request. */
type ListFilter = (this: IExecuteSingleFunctions) => ((record: IDataObject) => boolean) | undefined;

const PLURAL: Partial<Record<RecordKind, string>> = {
	clientListItem: 'clients',
	individual: 'individuals',
	organisation: 'organisations',
};

function tooManyToOutput(
	context: IExecuteSingleFunctions,
	kind: RecordKind,
	total?: number,
): NodeOperationError {
	const many = PLURAL[kind] ?? 'records';
	const limit = MAX_OUTPUT_ITEMS.toLocaleString('en-US');
	const count =
		total === undefined
			? `More than ${limit} ${many} match`
			: `The firm has ${total.toLocaleString('en-US')} ${many}`;
	const message = `${count}: more than n8n can output from one run of a node (${limit})`;
	return itemError(
		context.getNode(),
		context.getItemIndex(),
		message,
		`n8n cannot pass more than about 120,000 items from one node to the next, so the node stops at ${limit} before reading them all. Narrow the list with a filter, or turn off 'Return All' and set 'Limit'. To act on each change as it happens, use the Compliance Records Trigger.`,
	);
}

function pageList(kind: RecordKind, filter?: ListFilter) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		const wanted = this.getNodeParameter('returnAll', false)
			? Infinity
			: checkLimit(this.getNodeParameter('limit', 50), {
					node: this.getNode(),
					itemIndex: this.getItemIndex(),
				});
		const keep = filter?.call(this);
		const output = shaperOf(this, kind);
		const items: INodeExecutionData[] = [];
		try {
			const listed = pages(routedPages(this, requestData, requestData.options.qs), {
				wanted: keep ? Infinity : wanted,
			});
			paging: for await (const { records, total } of listed) {
				if (!keep && wanted > MAX_OUTPUT_ITEMS && total !== undefined && total > MAX_OUTPUT_ITEMS) {
					throw tooManyToOutput(this, kind, total);
				}
				for (const record of records) {
					if (keep && !keep(record)) continue;
					if (items.length === MAX_OUTPUT_ITEMS)
						throw tooManyToOutput(this, kind, keep ? undefined : total);
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

export function listRouting(
	path: string,
	kind: RecordKind,
	filter?: ListFilter,
): INodePropertyRouting {
	return paginationRouting({ method: 'GET', url: path }, pageList(kind, filter));
}
