import type { IDataObject, INodeParameterResourceLocator } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, serviceSaid, useSandbox } from '../../../../helpers/sandbox';
import { clientIds, listAll, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 3 });

const get = (clientId: string, input?: IDataObject[]) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'client', operation: 'get', clientId },
		input,
	});

let ids: string[];
beforeAll(async () => {
	ids = await clientIds(sandbox());
});

describe('Client > Get', () => {
	it('outputs the full client, unwrapped from data', async () => {
		const [id] = ids;

		const run = await get(id);

		expect(run.error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests).toHaveLength(1);
		expectReceived(requests[0], {
			method: 'GET',
			path: `/clients/${id}`,
			bearer: sandbox().apiKey,
		});
		expect(run.json).toEqual([
			(await serviceGet<{ data: IDataObject }>(sandbox(), `/clients/${id}`)).data,
		]);
		expect(run.json[0]).toHaveProperty('services');
		expect(run.json[0]).not.toHaveProperty('meta');
	});

	it('gets one client per input item, the ID mapped with an expression', async () => {
		const run = await get(
			'={{ $json.clientId }}',
			ids.map((clientId) => ({ clientId })),
		);

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.id)).toEqual(ids);
		expect(
			sandbox()
				.requests()
				.map((request) => request.path),
		).toEqual(ids.map((id) => `/clients/${id}`));
	});

	it('trims the ID and URL-encodes it, so an ID holding "/" or ".." stays in /clients', async () => {
		const run = await get(' ../firm ');

		expect(run.error?.message).toBe('Client "../firm" was not found [item 0]');
		expect(run.error?.description).toContain(serviceSaid(sandbox()));
		const requests = sandbox().requests();
		expect(requests).toHaveLength(1);
		expect(requests[0].url).toBe('/clients/..%2Ffirm');
		expect(requests[0].status).toBe(404);
	});

	it('is stopped by n8n itself when the required Client ID is left empty', async () => {
		const run = await get('');

		expect(run.error?.message).toBe(
			'The \'Compliance Records\' node has issues:\n- Parameter "Client ID" is required.',
		);
		expect(sandbox().requests()).toEqual([]);
	});

	it.each([
		['an empty ID', '', "'Client ID' is empty"],
		['an ID of spaces', '   ', "'Client ID' is empty"],
		['the ID ".."', '..', '\'Client ID\' ".." is not a valid ID'],
		['the ID "."', '.', '\'Client ID\' "." is not a valid ID'],
	])('refuses %s from an expression before sending anything', async (_case, clientId, message) => {
		const run = await get('={{ $json.clientId }}', [{ clientId }]);

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(run.json).toEqual([]);
		expect(sandbox().requests()).toEqual([]);
	});
});

/** The Client picker of node version 2, as the editor saves it. */
const picked = (mode: 'list' | 'url' | 'id', value: string): INodeParameterResourceLocator => ({
	__rl: true,
	mode,
	value,
});

const getPicked = (clientId: INodeParameterResourceLocator, input?: IDataObject[]) =>
	runNode({
		credentials: credentials(),
		typeVersion: 2,
		parameters: { resource: 'client', operation: 'get', clientId },
		input,
	});

describe('Client > Get, version 2: the client picked From List, By URL or By ID', () => {
	let clients: IDataObject[];
	beforeAll(async () => {
		clients = await listAll(sandbox());
	});
	const links = (index: number) => clients[index].links as { self: string; web: string };

	it.each([
		[
			'From List',
			() => ({ ...picked('list', ids[0]), cachedResultName: 'A client (HF-000001)' }),
			0,
		],
		["By URL, the client's web page", () => picked('url', links(1).web), 1],
		['By URL, its API URL', () => picked('url', links(2).self), 2],
		[
			'By URL, with a trailing slash, a query and spaces',
			() => picked('url', ` ${links(0).web}/?tab=aml#history `),
			0,
		],
		['By ID', () => picked('id', ids[1]), 1],
	])('gets the client %s', async (_mode, clientId, index) => {
		const run = await getPicked(clientId());

		expect(run.error).toBeUndefined();
		expect(
			sandbox()
				.requests()
				.map((request) => `${request.method} ${request.url}`),
		).toEqual([`GET /clients/${ids[index]}`]);
		expect(run.json).toEqual([
			expect.objectContaining({ id: ids[index], name: clients[index].name }),
		]);
	});

	// By ID as the MCP example sets it; From list as the editor leaves it when the model is let define the field.
	it.each(['id', 'list'] as const)(
		"gets the client an AI agent's tool call names ($fromAI, mode %s)",
		async (mode) => {
			const run = await getPicked(
				picked(mode, "={{ $fromAI('clientId', 'The client id', 'string') }}"),
				[{ clientId: ids[2] }],
			);

			expect(run.error).toBeUndefined();
			expect(
				sandbox()
					.requests()
					.map((request) => request.url),
			).toEqual([`/clients/${ids[2]}`]);
			expect(run.json).toEqual([expect.objectContaining({ id: ids[2] })]);
		},
	);

	it('reads URLs mapped from earlier items, one client each', async () => {
		const input = clients.map((client) => ({ link: (client.links as IDataObject).web }));

		const run = await getPicked(picked('url', '={{ $json.link }}'), input);

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.id)).toEqual(ids);
	});

	it.each([
		["an individual's URL", () => links(0).web.replace(/clients\/.*/, `individuals/${ids[0]}`)],
		['a URL of another path', () => `${links(0).web}/aml-determinations`],
		['a URL with no ID', () => links(0).web.replace(/[^/]+$/, '')],
		['an ID', () => ids[0]],
	])('refuses %s given by expression, naming the field, and sends nothing', async (_case, url) => {
		const given = url();

		const run = await getPicked(picked('url', '={{ $json.link }}'), [{ link: given }]);

		expect(run.error?.message).toBe(`'Client' "${given}" is not the URL of a client [item 0]`);
		expect(run.error?.description).toBe(
			"Paste the address of a client's page in the service: it ends in /clients/ followed by the ID. To give the ID alone, choose 'By ID' in 'Client'.",
		);
		expect(sandbox().requests()).toEqual([]);
	});

	it("is stopped by n8n before it runs when a URL typed in the field is not a client's, and sends nothing", async () => {
		const run = await getPicked(picked('url', links(0).web.replace('/clients/', '/individuals/')));

		expect(run.error?.message).toBe(
			"The 'Compliance Records' node has issues:\n- Not the URL of a client: paste one that ends in /clients/ followed by the ID",
		);
		expect(sandbox().requests()).toEqual([]);
	});

	it("names the field 'Client' when the client is not found or the ID is empty", async () => {
		const notFound = await getPicked(picked('id', 'no-such-client'));
		const empty = await getPicked(picked('id', '={{ $json.id }}'), [{ id: ' ' }]);

		expect(notFound.error?.message).toBe('Client "no-such-client" was not found [item 0]');
		expect(notFound.error?.description).toContain(serviceSaid(sandbox(), 0));
		expect(notFound.error?.description).toContain("'Client'");
		expect(empty.error?.message).toBe("'Client' is empty [item 0]");
		expect(sandbox().requests()).toHaveLength(1);
	});

	it('is stopped by n8n itself when no client is picked', async () => {
		const run = await getPicked(picked('list', ''));

		expect(run.error?.message).toBe(
			'The \'Compliance Records\' node has issues:\n- Parameter "Client" is required.',
		);
		expect(sandbox().requests()).toEqual([]);
	});
});

describe('Client > Get, version 1: the plain Client ID field of 0.1.0', () => {
	it('takes the ID as text and names the field Client ID', async () => {
		const get = (clientId: string) =>
			runNode({
				credentials: credentials(),
				typeVersion: 1,
				parameters: { resource: 'client', operation: 'get', clientId },
			});

		const found = await get(ids[0]);
		const missing = await get('');

		expect(found.json).toEqual([expect.objectContaining({ id: ids[0] })]);
		expect(missing.error?.message).toBe(
			'The \'Compliance Records\' node has issues:\n- Parameter "Client ID" is required.',
		);
	});
});
