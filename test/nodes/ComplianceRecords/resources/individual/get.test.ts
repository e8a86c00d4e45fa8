import type { IDataObject, INodeParameterResourceLocator } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, serviceSaid, useSandbox } from '../../../../helpers/sandbox';
import { listAll, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 6 });

const get = (individualId: string) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'individual', operation: 'get', individualId },
	});

describe('Individual > Get', () => {
	it('outputs the individual, unwrapped from data', async () => {
		const [first] = (await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/individuals'))
			.data;
		sandbox().clearRequests();

		const run = await get(first.id);

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: `/individuals/${first.id}`,
			bearer: sandbox().apiKey,
		});
		expect(run.json).toEqual([
			(await serviceGet<{ data: IDataObject }>(sandbox(), `/individuals/${first.id}`)).data,
		]);
		expect(run.json[0]).toMatchObject({ object: 'individual', id: first.id });
	});

	it('names the missing individual and its ID', async () => {
		const run = await get('ind/404');

		expect(run.error?.message).toBe('Individual "ind/404" was not found [item 0]');
		expect(run.error?.description).toContain(serviceSaid(sandbox()));
		expect(sandbox().requests()[0].url).toBe('/individuals/ind%2F404');
	});
});

describe('Individual > Get, version 2: the individual picked From List, By URL or By ID', () => {
	const getPicked = (individualId: INodeParameterResourceLocator) =>
		runNode({
			credentials: credentials(),
			typeVersion: 2,
			parameters: { resource: 'individual', operation: 'get', individualId },
		});

	it('gets the individual picked each way, and names the field Individual', async () => {
		const [first, second] = await listAll(sandbox(), '/individuals');
		const links = (individual: IDataObject) => individual.links as { self: string; web: string };
		const client = (await listAll(sandbox()))[0];
		sandbox().clearRequests();

		const runs = [
			await getPicked({
				__rl: true,
				mode: 'list',
				value: first.id as string,
				cachedResultName: 'Someone',
			}),
			await getPicked({ __rl: true, mode: 'url', value: links(second).web }),
			await getPicked({ __rl: true, mode: 'url', value: links(first).self }),
			await getPicked({ __rl: true, mode: 'id', value: second.id as string }),
		];
		const clientUrl = await getPicked({
			__rl: true,
			mode: 'url',
			value: `={{ "${links(client).web}" }}`,
		});
		const missing = await getPicked({ __rl: true, mode: 'id', value: 'ind-404' });

		expect(runs.map((run) => run.error)).toEqual([undefined, undefined, undefined, undefined]);
		expect(runs.map((run) => run.json[0].id)).toEqual([first.id, second.id, first.id, second.id]);
		expect(clientUrl.error?.message).toBe(
			`'Individual' "${links(client).web}" is not the URL of an individual [item 0]`,
		);
		expect(missing.error?.message).toBe('Individual "ind-404" was not found [item 0]');
		expect(missing.error?.description).toContain(serviceSaid(sandbox()));
		expect(
			sandbox()
				.requests()
				.map((request) => request.url),
		).toEqual([
			`/individuals/${String(first.id)}`,
			`/individuals/${String(second.id)}`,
			`/individuals/${String(first.id)}`,
			`/individuals/${String(second.id)}`,
			'/individuals/ind-404',
		]);
	});
});
