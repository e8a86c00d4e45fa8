import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 260 });

describe('Individual > Get Many', () => {
	it('pages through every individual with Return All', async () => {
		const { meta } = await serviceGet<{ meta: { total: number } }>(
			sandbox(),
			'/individuals?limit=1',
		);
		sandbox().clearRequests();

		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'individual', operation: 'getAll', returnAll: true },
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(meta.total);
		expect(new Set(run.json.map((individual: IDataObject) => individual.id)).size).toBe(meta.total);
		expect(run.json.every((individual) => individual.object === 'individual')).toBe(true);
		const requests = sandbox().requests();
		expect(requests).toHaveLength(Math.ceil(meta.total / 200));
		expectReceived(requests[0], {
			method: 'GET',
			path: '/individuals',
			query: { limit: '200' },
			bearer: sandbox().apiKey,
		});
	});

	it('returns up to Limit', async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'individual', operation: 'getAll', limit: 7 },
		});

		expect(run.json).toHaveLength(7);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/individuals',
			query: { limit: '7' },
			bearer: sandbox().apiKey,
		});
	});
});
