import { runNode } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';

/**
 * Return All on firms past n8n's item ceiling: n8n-core's RoutingNode hands a run's items on
 * with one spread call (`returnData.push(...items)`, n8n 1.x and 2.x), which overflows the stack
 * at about 125,000 items. The node outputs up to 100,000 and stops before reading more.
 */
describe.each([150_000, 250_000])('Return All on a firm of %i clients', (clients) => {
	const { sandbox, credentials } = useSandbox({ clients });

	it("stops at the first page, saying the firm's size, why, and what to do instead", async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'getAll', returnAll: true },
		});

		expect(run.error?.message).toBe(
			`The firm has ${clients.toLocaleString('en-US')} clients: more than n8n can output from one run of a node (100,000) [item 0]`,
		);
		expect(run.error?.description).toBe(
			"n8n cannot pass more than about 120,000 items from one node to the next, so the node stops at 100,000 before reading them all. Narrow the list with a filter, or turn off 'Return All' and set 'Limit'. To act on each change as it happens, use the Compliance Records Trigger.",
		);
		expect(run.json).toEqual([]);
		expect(
			sandbox()
				.requests()
				.map((request) => request.query),
		).toEqual([{ limit: '200' }]);
	});

	it('a Limit of 100,000 still works: exactly that many, in 500 requests', async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: { resource: 'client', operation: 'getAll', returnAll: false, limit: 100_000 },
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(100_000);
		expect(new Set(run.json.map((client) => client.id)).size).toBe(100_000);
		expect(sandbox().requests()).toHaveLength(500);
	}, 120_000);
});

describe('Return All with a filter the service cannot apply, past the ceiling', () => {
	// About half the seeded clients have a review date.
	const { sandbox, credentials } = useSandbox({ clients: 250_000 });

	it('reads until the filter has kept 100,000, then stops with the same advice', async () => {
		const run = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'client',
				operation: 'getAll',
				returnAll: true,
				filters: { reviewDueWithinDays: 100_000, includeOverdue: true },
			},
		});

		expect(run.error?.message).toBe(
			'More than 100,000 clients match: more than n8n can output from one run of a node (100,000) [item 0]',
		);
		expect(run.json).toEqual([]);
		const read = sandbox().requests().length * 200;
		expect(read).toBeGreaterThan(100_000);
		expect(read).toBeLessThan(250_000);
	}, 120_000);
});
