/**
 * The From List mode of the Client and Individual pickers (node version 2), as n8n's editor
 * calls it: when the list opens, when the user types a search, and when they scroll to its end
 * (n8n's paginationToken). What the service received is read from the sandbox's request log.
 */
import type { IDataObject, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { listSearch } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { createClient, listAll } from '../../../helpers/serviceApi';

/** The most pages of 200 one call of From list reads. */
const PAGES_PER_SEARCH = 5;

// 1,250 clients: six full pages of 200 and a last one of 50.
const { sandbox, credentials } = useSandbox({ clients: 1250 });

const search = (method: string, filter?: string, paginationToken?: string) =>
	listSearch(method, {
		credentials: credentials(),
		typeVersion: 2,
		parameters: { resource: 'client', operation: 'get' },
		filter,
		paginationToken,
	});

interface Call {
	result: INodeListSearchResult;
	/** The `cursor` of each list request the call sent (undefined: the first page). */
	cursors: Array<string | undefined>;
}

/** Calls the search as the editor does while the user scrolls to the end each time, until the list ends. */
async function scrollToTheEnd(method: string, filter?: string): Promise<Call[]> {
	const calls: Call[] = [];
	let token: string | undefined;
	do {
		sandbox().clearRequests();
		const result = await search(method, filter, token);
		calls.push({
			result,
			cursors: sandbox()
				.requests()
				.map((request) => request.query.cursor as string | undefined),
		});
		token = result.paginationToken;
	} while (token !== undefined);
	return calls;
}

const every = (calls: Call[]) => calls.flatMap((call) => call.result.results);

const clientItem = (client: IDataObject): INodeListSearchItems => ({
	name: client.referenceNumber
		? `${String(client.name)} (${String(client.referenceNumber)})`
		: String(client.name),
	value: client.id as string,
	url: (client.links as IDataObject).web as string,
});

/** The test's reading of a search: each typed word begins a word of the name. */
const found = (name: string, ...typed: string[]) =>
	typed.every((word) =>
		name
			.toLowerCase()
			.split(/[^a-z0-9]+/)
			.some((nameWord) => nameWord.startsWith(word)),
	);

describe('Client: From List', () => {
	it("lists every client by name and reference, 200 per call as the user scrolls, with the client's web URL", async () => {
		const clients = await listAll(sandbox());

		const calls = await scrollToTheEnd('searchClients');

		expect(every(calls)).toEqual(clients.map(clientItem));
		expect(calls.map((call) => call.result.results.length)).toEqual([
			200, 200, 200, 200, 200, 200, 50,
		]);
		// One request a call, each continuing at the cursor the call before handed to n8n.
		expect(calls.map((call) => call.cursors.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
		expect(calls.map((call) => call.cursors[0])).toEqual([
			undefined,
			...calls.slice(0, -1).map((call) => call.result.paginationToken),
		]);
		const [last] = sandbox().requests();
		expect(last).toMatchObject({
			method: 'GET',
			path: '/clients',
			query: { limit: '200', cursor: calls[5].result.paginationToken },
		});
		expect(last.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		expect(calls.at(-1)?.result.paginationToken).toBeUndefined();
	});

	it('narrows the list by a typed search: every word begins a word of the name, in any case and order', async () => {
		const clients = await listAll(sandbox());
		const named = (...typed: string[]) =>
			clients.map(clientItem).filter((item) => found(item.name, ...typed));
		expect(named('walker').length).toBeGreaterThan(1);
		expect(named('walker', 'ev').length).toBeGreaterThan(0);

		const walkers = every(await scrollToTheEnd('searchClients', 'WALKER'));
		const walkerAndEvans = every(await scrollToTheEnd('searchClients', ' ev  Walk'));

		expect(walkers).toEqual(named('walker'));
		expect(walkerAndEvans).toEqual(named('walker', 'ev'));
		expect(walkerAndEvans.map((item) => item.name)).toContain('Walker & Evans (HF-000010)');
	});

	it('finds a name without its accents, and a client by its reference number', async () => {
		const created = await createClient(sandbox(), 'Brontë');

		const [byName] = every(await scrollToTheEnd('searchClients', 'test bronte'));
		const byReference = every(await scrollToTheEnd('searchClients', 'hf-000010'));

		expect(byName).toEqual({
			name: 'Test Brontë',
			value: created.id,
			url: (created.links as IDataObject).web,
		});
		expect(byReference.map((item) => item.name)).toEqual(['Walker & Evans (HF-000010)']);
	});

	it(`reads at most ${PAGES_PER_SEARCH} pages a call: a rare name is found over several calls, each going on from the last`, async () => {
		const rare = await createClient(sandbox(), 'Quennell'); // the last client of the list

		const calls = await scrollToTheEnd('searchClients', 'quennell');

		expect(calls.map((call) => call.cursors.length)).toEqual([
			PAGES_PER_SEARCH,
			7 - PAGES_PER_SEARCH,
		]);
		expect(calls.map((call) => call.result.results.map((item) => item.value))).toEqual([
			[],
			[rare.id],
		]);
		expect(calls[1].cursors[0]).toBe(calls[0].result.paginationToken);
		// Within a call, each page follows the one before: nothing is read twice, nothing skipped.
		expect(new Set(calls.flatMap((call) => call.cursors)).size).toBe(7);
	});

	it('stops at the page where a screenful matches, and the next call goes on from there', async () => {
		const clients = await listAll(sandbox());
		const trusts = clients.map(clientItem).filter((item) => found(item.name, 'family', 'trust'));
		const pageOfTheScreenful = Math.ceil(
			(clients.findIndex((client) => client.id === trusts[19].value) + 1) / 200,
		);
		expect(pageOfTheScreenful).toBeLessThan(PAGES_PER_SEARCH);

		const calls = await scrollToTheEnd('searchClients', 'family trust');

		expect(calls[0].cursors).toHaveLength(pageOfTheScreenful);
		expect(calls[0].result.results).toEqual(trusts.slice(0, calls[0].result.results.length));
		expect(calls[0].result.results.length).toBeGreaterThanOrEqual(20);
		expect(every(calls)).toEqual(trusts);
		expect(calls.every((call) => call.cursors.length <= PAGES_PER_SEARCH)).toBe(true);
		expect(new Set(calls.flatMap((call) => call.cursors)).size).toBe(7); // every page once
		expect(calls.flatMap((call) => call.cursors)).toHaveLength(7);
	});

	it('rides out a 503 of the service: the page is asked again', async () => {
		sandbox().injectFaults({ count: 1, status: 503, retryAfterSeconds: 0, path: '/clients' });

		const result = await search('searchClients');

		expect(result.results.length).toBeGreaterThan(0);
		expect(
			sandbox()
				.requests()
				.map((request) => request.status),
		).toEqual([503, 200]);
	});

	it("says what went wrong when the service refuses, as the editor's list shows it", async () => {
		sandbox().injectFaults({ count: 1, status: 500, path: '/clients' });

		await expect(search('searchClients')).rejects.toThrow(
			'The service could not complete the request (HTTP 500)',
		);
		sandbox().clearFaults();
	});
});

describe('Individual: From List', () => {
	it('lists individuals by first, middle and last name, with their web URLs, and searches them', async () => {
		const individuals = await listAll(sandbox(), '/individuals');
		const items = individuals.map((individual) => ({
			name: [individual.firstName, individual.middleName, individual.lastName]
				.filter(Boolean)
				.join(' '),
			value: individual.id,
			url: (individual.links as IDataObject).web,
		}));

		const listed = every(await scrollToTheEnd('searchIndividuals'));
		const searched = every(await scrollToTheEnd('searchIndividuals', 'walker'));

		expect(listed).toEqual(items);
		expect(searched).toEqual(items.filter((item) => found(item.name, 'walker')));
		expect(searched.length).toBeGreaterThan(0);
		expect(
			sandbox()
				.requests()
				.every((request) => request.path === '/individuals'),
		).toBe(true);
	});
});
