import type { IDataObject, INode } from 'n8n-workflow';

import { itemError } from './errors';

/** The service's largest page: the fewest requests. */
export const MAX_PAGE_SIZE = 200;

/** A list response: the records, the total, the next page's cursor. */
export interface ListPage<T = IDataObject> {
	data: T[];
	meta: { total: number; next_cursor?: string };
}

/** Asks the service for one page: `cursor` is absent on the first request. */
export type FetchPage<T = IDataObject> = (query: {
	limit: number;
	cursor?: string;
}) => Promise<ListPage<T>>;

/** One page as the loop hands it on: its records, the cursor of the page after it if any, and the list's total. */
interface Page<T = IDataObject> {
	records: T[];
	next?: string;
	total?: number;
}

/**
 * The one cursor-paging loop (Get Many, lookups, the trigger): until `wanted` records came, at
 * most 200 a request. It stops at an empty page or one without `next_cursor` (the service's paging rules), never
 * at `meta.total`, a count that records changing while paging would make wrong.
 */
export async function* pages<T = IDataObject>(
	fetchPage: FetchPage<T>,
	{ wanted = Infinity, from }: { wanted?: number; from?: string } = {},
): AsyncGenerator<Page<T>> {
	let received = 0;
	let cursor = from;
	do {
		const page = await fetchPage({ limit: Math.min(MAX_PAGE_SIZE, wanted - received), cursor });
		const records = page.data.slice(0, wanted - received);
		received += records.length;
		cursor = page.data.length > 0 && page.meta?.next_cursor ? page.meta.next_cursor : undefined;
		yield {
			records,
			next: cursor,
			total: typeof page.meta?.total === 'number' ? page.meta.total : undefined,
		};
	} while (cursor !== undefined && received < wanted);
}

/** A list answer as the paging loop reads it; anything else comes from another address than the service's API. */
export function listPageOf(node: INode, answer: unknown, itemIndex?: number): ListPage {
	const page = answer as ListPage | undefined;
	if (!Array.isArray(page?.data)) {
		throw itemError(
			node,
			itemIndex,
			'The service answered a list request with something that is not a list',
			"Check that the credential's 'Base URL' is the service's API address, then run the node again.",
		);
	}
	return page;
}
