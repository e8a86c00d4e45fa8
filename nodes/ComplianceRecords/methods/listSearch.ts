import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { listPageOf, pages } from '../transport/paging';
import { serviceRequest } from '../transport/request';

// No filter by name in the service: docs/nodes.md, "Picking a client or individual".

/** Pages read by one call at most; the next call goes on from there. */
const PAGES_PER_SEARCH = 5;

/** Enough to make the editor's list scroll: n8n asks for more only at its end. */
const SCREENFUL = 20;

const wordsOf = (text: string) =>
	text
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.split(/[^\p{L}\p{N}]+/u)
		.filter((word) => word !== '');

/** "ev wal" finds "Walker & Evans". */
function matches(name: string, typed: string[]): boolean {
	const nameWords = wordsOf(name);
	return typed.every((word) => nameWords.some((nameWord) => nameWord.startsWith(word)));
}

/** n8n's `paginationToken` is the service's cursor. */
async function searchList(
	context: ILoadOptionsFunctions,
	path: string,
	itemOf: (record: IDataObject) => INodeListSearchItems,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const typed = wordsOf(filter ?? '');
	const fetchPage = async ({ limit, cursor }: { limit: number; cursor?: string }) => {
		const qs = { limit, ...(cursor !== undefined && { cursor }) };
		return listPageOf(
			context.getNode(),
			(await serviceRequest.call(context, { method: 'GET', url: path, qs })).body,
		);
	};
	const results: INodeListSearchItems[] = [];
	let next: string | undefined;
	let pagesRead = 0;
	for await (const page of pages(fetchPage, { from: paginationToken || undefined })) {
		for (const item of page.records.map(itemOf)) {
			if (matches(item.name, typed)) results.push(item);
		}
		next = page.next;
		pagesRead += 1;
		if (results.length >= SCREENFUL || pagesRead === PAGES_PER_SEARCH) break;
	}
	return { results, paginationToken: next };
}

const webUrl = (record: IDataObject) =>
	(record.links as IDataObject | undefined)?.web as string | undefined;

const given = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** With its reference number: two clients may share a name. */
function clientItem(client: IDataObject): INodeListSearchItems {
	const reference = given(client.referenceNumber) ? ` (${client.referenceNumber})` : '';
	return {
		name: `${String(client.name)}${reference}`,
		value: String(client.id),
		url: webUrl(client),
	};
}

function individualItem(individual: IDataObject): INodeListSearchItems {
	const name = [individual.firstName, individual.middleName, individual.lastName]
		.filter(given)
		.join(' ');
	return { name, value: String(individual.id), url: webUrl(individual) };
}

export async function searchClients(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchList(this, '/clients', clientItem, filter, paginationToken);
}

export async function searchIndividuals(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchList(this, '/individuals', individualItem, filter, paginationToken);
}
