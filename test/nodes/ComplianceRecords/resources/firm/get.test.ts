import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ apiPath: '/v1' });

describe('Firm > Get', () => {
	it("outputs the credential's firm, below a base URL with a path", async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'firm', operation: 'get' },
		});

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/firm',
			bearer: sandbox().apiKey,
		});
		expect(sandbox().requests()[0].url).toBe('/v1/firm');
		expect(run.json).toEqual([(await serviceGet<{ data: unknown }>(sandbox(), '/firm')).data]);
		expect(run.json[0]).toMatchObject({
			object: 'firm',
			id: sandbox().firm.id,
			name: sandbox().firm.name,
		});
	});
});
