import type { IDataObject } from 'n8n-workflow';

import { addDays } from '../../../helpers/calendar';
import type { PollEngine } from '../../../helpers/poll';
import { useSandbox } from '../../../helpers/sandbox';
import { createTriggerPoller } from '../../../helpers/trigger';
import { clientIds, createClient, listAll, touchClient } from '../../../helpers/serviceApi';

/*
 * Each way n8n keeps a poll's state (test/helpers/poll.ts models n8n 2.40.7's: the in-memory
 * poller, the durable scheduler, the durable scheduler with durable cursors): from activation
 * on, every change is emitted once, whether made right after activation, before n8n's first
 * scheduled poll, or later. With durable cursors n8n keeps nothing of what the activation poll
 * wrote in the node's static data: the trigger starts from its activation copy.
 */

const { sandbox, credentials } = useSandbox({ clients: 300, controls: true });
let ids: string[];
beforeAll(async () => {
	ids = await clientIds(sandbox());
});

const engines: PollEngine[] = ['in-memory', 'durable-scheduler', 'durable-cursors'];
const pairs = (items: IDataObject[]) =>
	items.map((item) => `${item.id}@${item.lastModifiedAt}`).sort();
let next = 0;
const someClient = () => ids[next++ % ids.length];

describe.each(engines)('%s', (engine) => {
	it('Client Created or Modified: a change right after activation, and later ones, each emitted once', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine,
		});
		await touchClient(sandbox(), someClient()); // before activation: not emitted
		expect(await poller.activate()).toEqual([]);
		if (engine === 'durable-cursors') expect(poller.saved()).toEqual({}); // what n8n kept of it

		const right = [
			await touchClient(sandbox(), someClient()),
			await createClient(sandbox(), `After ${engine}`),
		];
		expect(pairs(await poller.poll())).toEqual(pairs(right));
		const later = await touchClient(sandbox(), someClient());
		expect(pairs(await poller.poll())).toEqual(pairs([later]));
		expect(await poller.poll()).toEqual([]);
		expect(await poller.poll()).toEqual([]);
	});

	it('AML Determination Completed: a determination right after activation, and a later one, each emitted once', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'amlDeterminationCompleted' },
			credentials: credentials(),
			engine,
		});
		expect(await poller.activate()).toEqual([]);
		const right = sandbox().completeAmlDetermination(someClient(), 'HIGH') as IDataObject;
		expect(pairs(await poller.poll())).toEqual(pairs([right]));
		expect(await poller.poll()).toEqual([]);
		const later = sandbox().completeAmlDetermination(someClient(), 'LOW') as IDataObject;
		expect(pairs(await poller.poll())).toEqual(pairs([later]));
	});

	it('Review Due: a date moved into the window right after activation, and a later one, each emitted once', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'reviewDue', days: 30 },
			credentials: credentials(),
			engine,
			timezone: 'UTC',
		});
		expect(await poller.activate()).toEqual([]);
		const today = new Date().toISOString().slice(0, 10);
		const undated = (await listAll(sandbox()))
			.filter((client) => !client.nextReviewDate)
			.map((client) => client.id as string);
		const right = await touchClient(sandbox(), undated[next++], {
			nextReviewDate: addDays(today, 3),
		});
		expect(pairs(await poller.poll())).toEqual(pairs([right]));
		expect(await poller.poll()).toEqual([]);
		const later = await touchClient(sandbox(), undated[next++], {
			nextReviewDate: addDays(today, 4),
		});
		expect(pairs(await poller.poll())).toEqual(pairs([later]));
	});
});

describe('the activation copy', () => {
	it('is kept in the workflow’s static data, and not read again once n8n kept a poll of the node', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		expect(await poller.activate()).toEqual([]);
		expect(Object.keys(poller.savedWorkflowData())).toEqual([
			'complianceRecordsTrigger:Compliance Records Trigger',
		]);
		const first = await touchClient(sandbox(), someClient());
		expect(pairs(await poller.poll())).toEqual(pairs([first]));
		// n8n keeps the node's state from now on: the next poll starts from it (the activation
		// copy would emit that change again).
		expect(await poller.poll()).toEqual([]);
		expect(poller.saved()).toMatchObject({ version: 2, event: 'clientModified' });
	});

	it('is used after the event was changed while the workflow was off: changes right after activation are emitted', async () => {
		const before = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		expect(await before.activate()).toEqual([]);
		await touchClient(sandbox(), someClient());
		expect(await before.poll()).toHaveLength(1);
		// Deactivated, the event changed, activated again: n8n keeps the old node state in its cursor row.
		const after = createTriggerPoller({
			parameters: { event: 'amlDeterminationCompleted' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		after.load(before.saved(), before.savedWorkflowData());
		expect(await after.activate()).toEqual([]);
		expect(after.saved()).toMatchObject({ event: 'clientModified' }); // what n8n kept of the activation poll
		const right = sandbox().completeAmlDetermination(someClient(), 'HIGH') as IDataObject;
		expect(pairs(await after.poll())).toEqual(pairs([right]));
		expect(await after.poll()).toEqual([]);
	});

	it('is not read again for an event the trigger went back to: it starts over', async () => {
		const first = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		expect(await first.activate()).toEqual([]);
		await touchClient(sandbox(), someClient());
		expect(await first.poll()).toHaveLength(1);
		const other = createTriggerPoller({
			parameters: { event: 'amlDeterminationCompleted' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		other.load(first.saved(), first.savedWorkflowData());
		expect(await other.poll()).toEqual([]); // the other event, started at a tick
		await touchClient(sandbox(), someClient()); // while the other event was set: not for the first
		const back = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		back.load(other.saved(), other.savedWorkflowData());
		expect(await back.poll()).toEqual([]); // starts over: not from the first activation's copy
		const later = await touchClient(sandbox(), someClient());
		expect(pairs(await back.poll())).toEqual(pairs([later]));
	});

	it('is not used for another event: changing the event starts over', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		expect(await poller.activate()).toEqual([]);
		sandbox().completeAmlDetermination(someClient(), 'LOW'); // after that copy, before the new event's first poll
		const changed = createTriggerPoller({
			parameters: { event: 'amlDeterminationCompleted' },
			credentials: credentials(),
			engine: 'durable-cursors',
		});
		changed.load({}, poller.savedWorkflowData());
		expect(await changed.poll()).toEqual([]);
		expect(await changed.poll()).toEqual([]);
	});
});
