import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { serviceGet } from '../../../helpers/serviceApi';

/**
 * Every Get Many pages the same way; shown on clients. For each firm size, Return All and
 * several limits: the items n8n outputs, and the exact requests the service received.
 * `limits` lists the `limit` each request asked for, in order. Paging ends at an empty page or
 * one without a cursor (spec §4.5), never at `meta.total`.
 */
const cases: Array<{ clients: number; returnAll: number[]; byLimit: Record<number, number[]> }> = [
	{
		clients: 0,
		returnAll: [200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200], 450: [200] },
	},
	{
		clients: 1,
		returnAll: [200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200], 450: [200] },
	},
	{
		clients: 199,
		returnAll: [200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200], 450: [200] },
	},
	// A full final page still has a cursor: the page after it, empty, ends the listing.
	{
		clients: 200,
		returnAll: [200, 200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200, 50], 450: [200, 200] },
	},
	{
		clients: 201,
		returnAll: [200, 200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200, 50], 450: [200, 200] },
	},
	{
		clients: 450,
		returnAll: [200, 200, 200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200, 50], 450: [200, 200, 50] },
	},
	{
		clients: 1000,
		returnAll: [200, 200, 200, 200, 200, 200],
		byLimit: { 1: [1], 50: [50], 200: [200], 250: [200, 50], 450: [200, 200, 50] },
	},
];

describe.each(cases)('Get Many with $clients clients', ({ clients, returnAll, byLimit }) => {
	const { sandbox, credentials } = useSandbox({ clients });

	const getMany = (parameters: IDataObject) =>
		runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'getAll', ...parameters },
		});

	/** The pages the service gives for these limits and cursors, read directly (after the node ran). */
	async function nextCursors(
		requests: Array<{ query: Record<string, string | string[]> }>,
	): Promise<string[]> {
		const cursors: string[] = [];
		for (const { query } of requests) {
			const search = new URLSearchParams(query as Record<string, string>).toString();
			const page = await serviceGet<{ meta: { next_cursor?: string } }>(
				sandbox(),
				`/clients?${search}`,
			);
			cursors.push(page.meta.next_cursor as string);
		}
		return cursors;
	}

	it(`Return All: all ${clients} clients, once each, in ${returnAll.length} request(s) of 200`, async () => {
		const run = await getMany({ returnAll: true });

		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(clients);
		expect(new Set(run.json.map((client) => client.id)).size).toBe(clients);
		const requests = sandbox().requests();
		expect(requests.map((request) => Number(request.query.limit))).toEqual(returnAll);
		expect(
			requests.every((request) => request.method === 'GET' && request.path === '/clients'),
		).toBe(true);

		// Each request after the first passes back the previous page's cursor exactly, URL-encoded.
		const cursors = await nextCursors(requests.slice(0, -1));
		requests.slice(1).forEach((request, index) => {
			expect(request.query.cursor).toBe(cursors[index]);
			expect(request.url).toContain(`cursor=${encodeURIComponent(cursors[index])}`);
		});
		expect(requests[0].query.cursor).toBeUndefined();
	});

	it.each(Object.entries(byLimit))('Limit %s', async (limit, limits) => {
		const run = await getMany({ limit: Number(limit) });

		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(Math.min(clients, Number(limit)));
		expect(new Set(run.json.map((client) => client.id)).size).toBe(run.json.length);
		expect(
			sandbox()
				.requests()
				.map((request) => Number(request.query.limit)),
		).toEqual(limits);
	});
});

describe('Get Many with a Limit out of range', () => {
	const { sandbox, credentials } = useSandbox({ clients: 3 });

	it.each([
		['0', 0],
		['-5', -5],
		['2.5', 2.5],
		['100001', 100_001],
	])('refuses Limit %s from an expression before sending anything', async (shown, limit) => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'getAll', limit: `={{ ${limit} }}` },
		});

		expect(run.error?.message).toBe(
			`'Limit' must be a whole number from 1 to 100,000 (got ${shown}) [item 0]`,
		);
		expect(sandbox().requests()).toEqual([]);
	});
});
