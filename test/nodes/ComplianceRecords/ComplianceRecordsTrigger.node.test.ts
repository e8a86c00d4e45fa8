/* eslint-disable @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import type { IDataObject } from 'n8n-workflow';

import { ComplianceRecordsTrigger } from '../../../nodes/ComplianceRecords/ComplianceRecordsTrigger.node';
import { useSandbox } from '../../helpers/sandbox';
import { createTriggerPoller, triggerRequests } from '../../helpers/trigger';
import { listAll, touchClient } from '../../helpers/serviceApi';

/*
 * The trigger as the editor shows it, and "Fetch Test Event" (n8n runs the node in manual mode):
 * the most recent events, found without listing the whole firm, the saved state untouched.
 */

const busy = useSandbox({ clients: 300, controls: true });
const quiet = useSandbox({ clients: 600, seed: 7 });
const empty = useSandbox({ clients: 0 });

const newestFirst = (clients: IDataObject[], time: (client: IDataObject) => string) =>
	[...clients].sort((a, b) => time(b).localeCompare(time(a)) || String(a.id).localeCompare(String(b.id)));
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('the node', () => {
	const { description } = new ComplianceRecordsTrigger();

	it('is a polling trigger with the contract’s name, authentication and events', () => {
		expect(description).toMatchObject({ name: 'complianceRecordsTrigger', polling: true, inputs: [] });
		const parameter = (name: string) => description.properties.find((property) => property.name === name);
		expect(parameter('authentication')).toMatchObject({ default: 'apiKey' });
		expect(parameter('event')?.default).toBe('clientModified');
		expect(parameter('event')?.options?.map((option) => ('value' in option ? option.value : undefined))).toEqual([
			'clientModified',
			'amlDeterminationCompleted',
			'reviewDue',
		]);
		expect(parameter('days')).toMatchObject({ default: 30, displayOptions: { show: { event: ['reviewDue'] } } });
		expect(description.credentials?.map((credential) => credential.name)).toEqual([
			'complianceRecordsApi',
			'complianceRecordsOAuth2Api',
		]);
	});

	it('refuses a Days Ahead that is not a whole number of days, before any request', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'reviewDue', days: -1 },
			credentials: busy.credentials(),
		});
		await expect(poller.poll()).rejects.toThrow('Days Ahead must be a whole number of days, 0 or more, not -1');
		expect(triggerRequests(busy.sandbox())).toEqual([]);
	});
});

describe('Fetch Test Event', () => {
	it('gives the five most recently modified clients, newest first, in one request, without touching the saved state', async () => {
		const ids = (await listAll(busy.sandbox())).map((client) => client.id as string);
		const poller = createTriggerPoller({ parameters: { event: 'clientModified' }, credentials: busy.credentials() });
		await poller.poll();
		const touched: IDataObject[] = [];
		for (const id of ids.slice(40, 47)) {
			touched.push(await touchClient(busy.sandbox(), id));
			await pause();
		}
		const saved = poller.saved();
		busy.sandbox().clearRequests();

		const { json, error, staticData } = await poller.fetchTestEvent();
		expect(error).toBeUndefined();
		expect(json.map((client) => client.id)).toEqual(touched.slice(2).reverse().map((client) => client.id));
		expect(staticData).toEqual(saved);
		const requests = triggerRequests(busy.sandbox());
		expect(requests).toHaveLength(1);
		expect(Date.now() - Date.parse(String(requests[0].query.sinceModifiedAt))).toBeLessThan(11 * 60_000);
	});

	it('widens the time span until it holds five, never listing the whole firm', async () => {
		const all = await listAll(quiet.sandbox()); // nothing modified for days
		quiet.sandbox().clearRequests();
		const poller = createTriggerPoller({ parameters: { event: 'clientModified' }, credentials: quiet.credentials() });

		const { json, staticData } = await poller.fetchTestEvent();
		const expected = newestFirst(all, (client) => String(client.lastModifiedAt)).slice(0, 5);
		expect(json.map((client) => client.id)).toEqual(expected.map((client) => client.id));
		const requests = triggerRequests(quiet.sandbox());
		expect(requests.every((request) => request.query.sinceModifiedAt !== undefined)).toBe(true);
		expect(requests.length).toBeGreaterThan(1);
		expect(staticData).toEqual({});
	});

	it('gives the most recent AML determinations, with their risk level', async () => {
		const all = await listAll(quiet.sandbox());
		const poller = createTriggerPoller({
			parameters: { event: 'amlDeterminationCompleted' },
			credentials: quiet.credentials(),
		});
		const completedAt = (client: IDataObject) => String((client.lastAmlDetermination as IDataObject).completedAt);
		const expected = newestFirst(all.filter((client) => client.lastAmlDetermination), completedAt).slice(0, 5);
		const { json } = await poller.fetchTestEvent();
		expect(json.map((client) => client.id)).toEqual(expected.map((client) => client.id));
		expect(json.every((client) => (client.lastAmlDetermination as IDataObject).riskLevel)).toBe(true);
	});

	it('gives recently modified clients whose review is due, and the full client when asked', async () => {
		const ids = (await listAll(busy.sandbox())).map((client) => client.id as string);
		const soon = new Date(Date.now() + 5 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
		await touchClient(busy.sandbox(), ids[250], { nextReviewDate: soon });
		const poller = createTriggerPoller({
			parameters: { event: 'reviewDue', days: 30, options: { fetchFullClient: true } },
			credentials: busy.credentials(),
			timezone: 'UTC',
		});
		const { json } = await poller.fetchTestEvent();
		expect(json[0]).toMatchObject({ id: ids[250], nextReviewDate: soon });
		expect(json[0]).toHaveProperty('services');
		expect(json.every((client) => String(client.nextReviewDate) <= new Date(Date.now() + 31 * 86_400_000).toISOString())).toBe(true);
	});

	it('says what to do when there is nothing to show yet', async () => {
		const poller = createTriggerPoller({ parameters: { event: 'clientModified' }, credentials: empty.credentials() });
		const { json, error } = await poller.fetchTestEvent();
		expect(json).toEqual([]);
		expect(error?.message).toBe('The firm has no client yet');
		expect((error as Error & { description?: string }).description).toMatch(/then fetch a test event again/);
	});
});
