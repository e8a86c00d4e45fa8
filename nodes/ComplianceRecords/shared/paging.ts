import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import { checkLimit } from './validation';

/** The service's largest page (spec §8): the fewest requests. */
export const MAX_PAGE_SIZE = 200;

/** A list response (spec §2.7). */
export interface ListPage {
	data: IDataObject[];
	meta: { total: number; next_cursor?: string };
}

/** Asks the service for one page: `cursor` is absent on the first request. */
export type FetchPage = (query: { limit: number; cursor?: string }) => Promise<ListPage>;

/**
 * Yields a collection page by page until `wanted` records (Infinity for all) have come. Each
 * request asks for at most 200, and never for more than are still wanted; the cursor goes back
 * exactly as received. It stops on an empty page, on a page without `next_cursor`, or once the
 * records reach `meta.total`, so a full final page is not followed by a request for an empty one.
 */
export async function* pages(fetchPage: FetchPage, wanted = Infinity): AsyncGenerator<IDataObject[]> {
	let received = 0;
	let cursor: string | undefined;
	do {
		const page = await fetchPage({ limit: Math.min(MAX_PAGE_SIZE, wanted - received), cursor });
		const records = page.data.slice(0, wanted - received);
		received += records.length;
		if (records.length > 0) yield records;
		cursor = page.meta.next_cursor;
		if (page.data.length === 0 || received >= page.meta.total) break;
	} while (cursor !== undefined && received < wanted);
}

export async function collectPages(fetchPage: FetchPage, wanted = Infinity): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for await (const page of pages(fetchPage, wanted)) records.push(...page);
	return records;
}

/**
 * The `pagination` of every Get Many operation, run by n8n's declarative routing: Return All or
 * Limit decide how many records; each page is requested through n8n (`makeRoutingRequest`) and
 * every record becomes one output item.
 */
export async function paginateByCursor(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const wanted = this.getNodeParameter('returnAll', false)
		? Infinity
		: checkLimit(this.getNodeParameter('limit', 50), { node: this.getNode(), itemIndex: this.getItemIndex() });
	const query = { ...requestData.options.qs };
	const records = await collectPages(async ({ limit, cursor }) => {
		requestData.options.qs = { ...query, limit, ...(cursor !== undefined && { cursor }) };
		const [response] = await this.makeRoutingRequest(requestData);
		return response.json as unknown as ListPage;
	}, wanted);
	return records.map((json) => ({ json }));
}
