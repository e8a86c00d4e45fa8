import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { answeredMessage, expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { clientIds, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 3 });

const get = (clientId: string, input?: IDataObject[]) =>
	runNode({ credentials: credentials(), parameters: { resource: 'client', operation: 'get', clientId }, input });

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
		expectReceived(requests[0], { method: 'GET', path: `/clients/${id}`, bearer: sandbox().apiKey });
		expect(run.json).toEqual([(await serviceGet<{ data: IDataObject }>(sandbox(), `/clients/${id}`)).data]);
		expect(run.json[0]).toHaveProperty('services');
		expect(run.json[0]).not.toHaveProperty('meta');
	});

	it('gets one client per input item, the ID mapped with an expression', async () => {
		const run = await get('={{ $json.clientId }}', ids.map((clientId) => ({ clientId })));

		expect(run.error).toBeUndefined();
		expect(run.json.map((client) => client.id)).toEqual(ids);
		expect(sandbox().requests().map((request) => request.path)).toEqual(ids.map((id) => `/clients/${id}`));
	});

	it('trims the ID and URL-encodes it, so an ID holding "/" or ".." stays in /clients', async () => {
		const run = await get(' ../firm ');

		expect(run.error?.message).toBe(`Client "../firm" was not found: ${answeredMessage(sandbox())} [item 0]`);
		const requests = sandbox().requests();
		expect(requests).toHaveLength(1);
		expect(requests[0].url).toBe('/clients/..%2Ffirm');
		expect(requests[0].status).toBe(404);
	});

	it('is stopped by n8n itself when the required Client ID is left empty', async () => {
		const run = await get('');

		expect(run.error?.message).toBe("The 'Compliance Records' node has issues:\n- Parameter \"Client ID\" is required.");
		expect(sandbox().requests()).toEqual([]);
	});

	it.each([
		['an empty ID', '', "'Client ID' is empty"],
		['an ID of spaces', '   ', "'Client ID' is empty"],
		['the ID ".."', '..', "'Client ID' \"..\" is not a valid ID"],
		['the ID "."', '.', "'Client ID' \".\" is not a valid ID"],
	])('refuses %s from an expression before sending anything', async (_case, clientId, message) => {
		const run = await get('={{ $json.clientId }}', [{ clientId }]);

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(run.json).toEqual([]);
		expect(sandbox().requests()).toEqual([]);
	});
});
