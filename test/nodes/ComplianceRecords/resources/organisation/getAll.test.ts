import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 40 });

describe('Organisation > Get Many', () => {
	it('outputs one item per organisation', async () => {
		const expected = await serviceGet<{ data: unknown[] }>(sandbox(), '/organisations?limit=200');
		sandbox().clearRequests();

		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'organisation', operation: 'getAll', returnAll: true },
		});

		expect(run.error).toBeUndefined();
		expect(run.json.length).toBeGreaterThan(0);
		expect(run.json).toEqual(expected.data);
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/organisations',
			query: { limit: '200' },
			bearer: sandbox().apiKey,
		});
	});
});
