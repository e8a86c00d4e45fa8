import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { answeredMessage, expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 6 });

const get = (individualId: string) =>
	runNode({ credentials: credentials(), parameters: { resource: 'individual', operation: 'get', individualId } });

describe('Individual > Get', () => {
	it('outputs the individual, unwrapped from data', async () => {
		const [first] = (await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/individuals')).data;
		sandbox().clearRequests();

		const run = await get(first.id);

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], { method: 'GET', path: `/individuals/${first.id}`, bearer: sandbox().apiKey });
		expect(run.json).toEqual([(await serviceGet<{ data: IDataObject }>(sandbox(), `/individuals/${first.id}`)).data]);
		expect(run.json[0]).toMatchObject({ object: 'individual', id: first.id });
	});

	it('names the missing individual and its ID', async () => {
		const run = await get('ind/404');

		expect(run.error?.message).toBe(`Individual "ind/404" was not found: ${answeredMessage(sandbox())} [item 0]`);
		expect(sandbox().requests()[0].url).toBe('/individuals/ind%2F404');
	});
});
