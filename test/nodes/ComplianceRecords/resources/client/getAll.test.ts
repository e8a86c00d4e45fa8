import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, serviceGet, useSandbox } from '../../../../helpers/sandbox';

const { sandbox, credentials } = useSandbox({ clients: 30 });

const getAll = (parameters: IDataObject, timezone?: string) =>
	runNode({ credentials: credentials(), parameters: { resource: 'client', operation: 'getAll', ...parameters }, timezone });

async function allClients(): Promise<IDataObject[]> {
	const list = await serviceGet<{ data: IDataObject[] }>(sandbox(), '/clients?limit=200');
	sandbox().clearRequests();
	return list.data;
}

describe('Client > Get Many', () => {
	it('outputs one item per client list item, 50 by default', async () => {
		const clients = await allClients();

		const run = await getAll({});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(clients.slice(0, 50));
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], { method: 'GET', path: '/clients', query: { limit: '50' }, bearer: sandbox().apiKey });
	});

	it('filters on Modified Since, sent as a UTC date-time', async () => {
		const clients = await allClients();
		const times = clients.map((client) => String(client.lastModifiedAt)).sort();
		const since = times[Math.floor(times.length / 2)];

		const run = await getAll({ returnAll: true, filters: { sinceModifiedAt: since } });

		expect(run.error).toBeUndefined();
		const expected = clients.filter((client) => String(client.lastModifiedAt) >= since);
		expect(run.json).toEqual(expected);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/clients',
			query: { limit: '200', sinceModifiedAt: new Date(since).toISOString() },
			bearer: sandbox().apiKey,
		});
	});

	it("reads a date picked without a zone in the workflow's time zone", async () => {
		await allClients();

		const winter = await getAll({ filters: { sinceModifiedAt: '2026-01-15T09:30:00' } }, 'Europe/London');
		const summer = await getAll({ filters: { sinceModifiedAt: '2026-07-15T09:30:00' } }, 'Europe/London');
		const newYork = await getAll({ filters: { sinceModifiedAt: '2026-07-15T09:30:00' } }, 'America/New_York');

		expect([winter.error, summer.error, newYork.error]).toEqual([undefined, undefined, undefined]);
		expect(sandbox().requests().map((request) => request.query.sinceModifiedAt)).toEqual([
			'2026-01-15T09:30:00.000Z',
			'2026-07-15T08:30:00.000Z',
			'2026-07-15T13:30:00.000Z',
		]);
	});

	it('refuses a Modified Since that is not a date before sending anything', async () => {
		const run = await getAll({ filters: { sinceModifiedAt: 'last tuesday' } });

		expect(run.error?.message).toBe('Modified Since is not a valid date and time');
		expect(sandbox().requests()).toEqual([]);
	});
});
