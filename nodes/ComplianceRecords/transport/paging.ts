import type { IDataObject } from 'n8n-workflow';

/** The service's largest page (spec §8): the fewest requests. */
export const MAX_PAGE_SIZE = 200;

/** A list response (spec §2.7). */
export interface ListPage<T = IDataObject> {
	data: T[];
	meta: { total: number; next_cursor?: string };
}

/** Asks the service for one page: `cursor` is absent on the first request. */
export type FetchPage<T = IDataObject> = (query: { limit: number; cursor?: string }) => Promise<ListPage<T>>;

/** One page as the loop hands it on: its records, and the cursor of the page after it, if any. */
export interface Page<T = IDataObject> {
	records: T[];
	next?: string;
}

/**
 * The one cursor-paging loop of the package: the action node's Get Many and the trigger's
 * listings both page through it. It yields page by page until `wanted` records (Infinity for
 * all) have come. Each request asks for at most 200, and never for more than are still wanted;
 * the cursor goes back exactly as received. `from` resumes at a cursor an earlier run kept.
 *
 * It stops when a page is empty or carries no `next_cursor` (spec §4.5, rules 3 and 4), never
 * at `meta.total`: a total is a count at one moment, not a promise about the pages. Records
 * deleted, or listed twice because they moved, while paging would make a total-based stop end
 * before the last page and miss records. The safe rule costs one request for an empty page
 * after a full final one, and only then.
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
		yield { records, next: cursor };
	} while (cursor !== undefined && received < wanted);
}
