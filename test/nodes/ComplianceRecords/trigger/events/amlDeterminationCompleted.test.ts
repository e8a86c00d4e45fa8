import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../../../../helpers/sandbox';
import { createTriggerPoller, pageHookProxy } from '../../../../helpers/trigger';
import { listAll, touchClient } from '../../../../helpers/serviceApi';

/*
 * AML Determination Completed: the modified-client stream, emitted when
 * lastAmlDetermination.completedAt moved past the previous poll, with the risk level.
 */

const { sandbox, credentials } = useSandbox({ clients: 400, controls: true });
let ids: string[];
let withOldDetermination: string;
beforeAll(async () => {
	const clients = await listAll(sandbox());
	ids = clients.map((client) => client.id as string);
	withOldDetermination = clients.slice(331, 389).find((client) => client.lastAmlDetermination)
		?.id as string;
});
afterEach(() => sandbox().setClock({ frozenAt: null }));

const parameters = { event: 'amlDeterminationCompleted' };

async function activatedPoller(credentialsOverride?: ReturnType<typeof credentials>) {
	const poller = createTriggerPoller({
		parameters,
		credentials: credentialsOverride ?? credentials(),
	});
	expect(await poller.poll()).toEqual([]);
	return poller;
}

const complete = (
	id: string,
	riskLevel: 'LOW' | 'NORMAL' | 'MEDIUM' | 'HIGH' | 'PENDING' = 'NORMAL',
) => sandbox().completeAmlDetermination(id, riskLevel) as IDataObject;
const determinations = (items: IDataObject[]) =>
	items.map((item) => ({ id: item.id, ...(item.lastAmlDetermination as IDataObject) }));

it('emits each completed determination once, with its risk level, and no other change', async () => {
	const poller = await activatedPoller();
	const high = complete(ids[0], 'HIGH');
	const low = complete(ids[1], 'LOW');
	await touchClient(sandbox(), ids[2]); // modified, no determination
	await touchClient(sandbox(), withOldDetermination); // modified, determination from before

	expect(determinations(await poller.poll())).toEqual(determinations([high, low]));
	expect((await poller.poll()).length).toBe(0);

	await touchClient(sandbox(), ids[0]); // the same determination, client modified again
	expect(await poller.poll()).toEqual([]);
	const again = complete(ids[0], 'MEDIUM');
	expect(determinations(await poller.poll())).toEqual([
		{
			id: ids[0],
			riskLevel: 'MEDIUM',
			completedAt: (again.lastAmlDetermination as IDataObject).completedAt,
		},
	]);
});

it('splits determinations completed at the same instant across two polls, each emitted once', async () => {
	const poller = await activatedPoller();
	sandbox().setClock({ frozenAt: sandbox().now() });
	const first = ids.slice(10, 230).map((id) => complete(id));
	expect((await poller.poll()).map((item) => item.id).sort()).toEqual(
		first.map((item) => item.id).sort(),
	);
	const second = ids.slice(230, 260).map((id) => complete(id, 'HIGH'));
	expect((await poller.poll()).map((item) => item.id).sort()).toEqual(
		second.map((item) => item.id).sort(),
	);
	expect(await poller.poll()).toEqual([]);
});

it('emits a determination completed while the poll pages, at a position already passed, by the next poll', async () => {
	const proxy = await pageHookProxy(sandbox());
	try {
		const poller = await activatedPoller(proxy.credentials());
		const listed = ids.slice(100, 330).map((id) => complete(id));
		let passed: IDataObject | undefined;
		proxy.onLaterPage(() => {
			passed = complete(ids[3], 'HIGH');
		});
		expect(await poller.poll()).toHaveLength(listed.length);
		proxy.onLaterPage(() => undefined);
		expect(determinations(await poller.poll())).toEqual(determinations([passed as IDataObject]));
	} finally {
		await proxy.close();
	}
});

it('with Fetch Full Client, emits the full client carrying the determination', async () => {
	const poller = createTriggerPoller({
		parameters: { ...parameters, options: { fetchFullClient: true } },
		credentials: credentials(),
	});
	await poller.poll();
	const completed = complete(ids[390], 'HIGH');
	const [emitted, ...rest] = await poller.poll();
	expect(rest).toEqual([]);
	expect(emitted).toMatchObject({
		id: ids[390],
		lastAmlDetermination: completed.lastAmlDetermination,
	});
	expect(emitted).toHaveProperty('services');
});
