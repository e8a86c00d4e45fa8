/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ComplianceRecordsTrigger } from '../../../nodes/ComplianceRecords/ComplianceRecordsTrigger.node';
import { useSandbox } from '../../helpers/sandbox';
import { createTriggerPoller, triggerRequests } from '../../helpers/trigger';
import { listAll, serviceGet, touchClient, type ServiceClient } from '../../helpers/serviceApi';
import { SIMPLIFIED_KEYS, simplifiedClient } from '../../helpers/simplified';
import { parametersShown } from '../../helpers/parametersShown';

/*
 * The trigger as the editor shows it, and "Fetch Test Event" (n8n runs the node in manual mode):
 * the most recent events, found without listing the whole firm, the saved state untouched.
 */

const busy = useSandbox({ clients: 300, controls: true });
const quiet = useSandbox({ clients: 600, seed: 7 });
const empty = useSandbox({ clients: 0 });

const newestFirst = (clients: IDataObject[], time: (client: IDataObject) => string) =>
	[...clients].sort(
		(a, b) => time(b).localeCompare(time(a)) || String(a.id).localeCompare(String(b.id)),
	);
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('the node', () => {
	const { description } = new ComplianceRecordsTrigger();

	it("has a codex whose node version is the trigger's newest", () => {
		const codex = JSON.parse(
			readFileSync(
				join(__dirname, '../../../nodes/ComplianceRecords/ComplianceRecordsTrigger.node.json'),
				'utf8',
			),
		);
		expect(codex.node).toBe('n8n-nodes-compliance-records.complianceRecordsTrigger');
		expect(Number(codex.nodeVersion)).toBe(Math.max(...[description.version].flat()));
	});

	it('is a polling trigger with the contract’s name, authentication and events ("Trigger On", sorted)', () => {
		expect(description).toMatchObject({
			name: 'complianceRecordsTrigger',
			polling: true,
			inputs: [],
		});
		const parameter = (name: string) =>
			description.properties.find((property) => property.name === name);
		expect(parameter('authentication')).toMatchObject({ default: 'apiKey' });
		expect(parameter('event')).toMatchObject({
			displayName: 'Trigger On',
			default: 'clientModified',
		});
		expect(
			parameter('event')?.options?.map((option) => [
				option.name,
				'value' in option ? option.value : undefined,
			]),
		).toEqual([
			['AML Determination Completed', 'amlDeterminationCompleted'],
			['Client Created or Modified', 'clientModified'],
			['Review Due', 'reviewDue'],
		]);
		expect(parameter('days')).toMatchObject({
			default: 30,
			displayOptions: { show: { event: ['reviewDue'] } },
		});
		expect(description.credentials?.map((credential) => credential.name)).toEqual([
			'complianceRecordsApi',
			'complianceRecordsOAuth2Api',
		]);
	});

	it("refuses a 'Review Due Within (Days)' that is not a whole number of days, before any request", async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'reviewDue', days: -1 },
			credentials: busy.credentials(),
		});
		await expect(poller.poll()).rejects.toThrow(
			"'Review Due Within (Days)' must be a whole number of days, 0 or more (got -1)",
		);
		expect(triggerRequests(busy.sandbox())).toEqual([]);
	});
});

describe('Fetch Test Event', () => {
	it('gives the five most recently modified clients, newest first, in one request, without touching the saved state', async () => {
		const ids = (await listAll(busy.sandbox())).map((client) => client.id as string);
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: busy.credentials(),
		});
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
		expect(json.map((client) => client.id)).toEqual(
			touched
				.slice(2)
				.reverse()
				.map((client) => client.id),
		);
		expect(staticData).toEqual(saved);
		const requests = triggerRequests(busy.sandbox());
		expect(requests).toHaveLength(1);
		expect(Date.now() - Date.parse(String(requests[0].query.sinceModifiedAt))).toBeLessThan(
			11 * 60_000,
		);
	});

	it('widens the time span until it holds five, never listing the whole firm', async () => {
		const all = await listAll(quiet.sandbox()); // nothing modified for days
		quiet.sandbox().clearRequests();
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: quiet.credentials(),
		});

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
		const completedAt = (client: IDataObject) =>
			String((client.lastAmlDetermination as IDataObject).completedAt);
		const expected = newestFirst(
			all.filter((client) => client.lastAmlDetermination),
			completedAt,
		).slice(0, 5);
		const { json } = await poller.fetchTestEvent();
		expect(json.map((client) => client.id)).toEqual(expected.map((client) => client.id));
		expect(json.every((client) => (client.lastAmlDetermination as IDataObject).riskLevel)).toBe(
			true,
		);
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
		expect(
			json.every(
				(client) =>
					String(client.nextReviewDate) <= new Date(Date.now() + 31 * 86_400_000).toISOString(),
			),
		).toBe(true);
	});

	it.each([
		[
			{ event: 'clientModified' },
			'The firm has no client yet',
			'Create a client in the service, then fetch a test event again.',
		],
		[
			{ event: 'amlDeterminationCompleted' },
			'No client of the firm has a completed AML determination yet',
			"Complete a client's AML determination in the service, then fetch a test event again.",
		],
		[
			{ event: 'reviewDue', days: 14 },
			'No client has a next review date in the next 14 days',
			"Give a client a next review date in the next 14 days in the service, or set 'Review Due Within (Days)' to more days, then fetch a test event again.",
		],
		[
			{ event: 'reviewDue', days: 0 },
			'No client has a next review date today',
			"Give a client a next review date today in the service, or set 'Review Due Within (Days)' to more days, then fetch a test event again.",
		],
	])('says what to do when there is nothing to show yet: %j', async (parameters, message, next) => {
		const poller = createTriggerPoller({ parameters, credentials: empty.credentials() });
		const { json, error } = await poller.fetchTestEvent();
		expect(json).toEqual([]);
		expect(error?.message).toBe(message);
		expect((error as Error & { description?: string }).description).toBe(next);
	});
});

describe("Simplify (version 1.1): Get Many's client, or with 'Fetch Full Client' Get's, for every event", () => {
	const shown = (values: INodeParameters, typeVersion: number) =>
		parametersShown(new ComplianceRecordsTrigger().description, values, typeVersion);

	/** A client with a partner, a manager and a completed AML determination, as the service holds it. */
	async function assignedClient(): Promise<ServiceClient> {
		for (const { id } of (await listAll(busy.sandbox())).slice(100)) {
			const { data } = await serviceGet<{ data: ServiceClient }>(
				busy.sandbox(),
				`/clients/${String(id)}`,
			);
			if (data.partner && data.manager && data.lastAmlDetermination) return data;
		}
		throw new Error('The sandbox has no assigned client');
	}

	/** What the trigger emits for an event on such a client after its activation, and the client as the service then holds it. */
	async function emittedEvent(
		parameters: IDataObject,
		typeVersion: number | undefined,
		happen: (id: string) => Promise<unknown>,
	) {
		const { id } = await assignedClient();
		const poller = createTriggerPoller({
			parameters,
			credentials: busy.credentials(),
			typeVersion,
			timezone: 'UTC',
		});
		expect(await poller.poll()).toEqual([]);
		await happen(id);
		const emitted = await poller.poll();
		return {
			changed: (await serviceGet<{ data: ServiceClient }>(busy.sandbox(), `/clients/${id}`)).data,
			emitted,
		};
	}
	const touch = (id: string) => touchClient(busy.sandbox(), id);
	const complete = async (id: string) => busy.sandbox().completeAmlDetermination(id, 'HIGH');
	let daysAhead = 4;
	/** A review date a few days ahead, another each time, so that the client's date changes. */
	const dueSoon = (id: string) =>
		touchClient(busy.sandbox(), id, {
			nextReviewDate: new Date(Date.now() + ++daysAhead * 86_400_000).toISOString().slice(0, 10),
		});

	it('a trigger saved at version 1 has no Simplify and emits the list item, as 0.1.0 did', async () => {
		expect(new ComplianceRecordsTrigger().description.version).toEqual([1, 1.1]);
		expect(shown({ event: 'clientModified' }, 1)).toEqual({
			authentication: 'apiKey',
			event: 'clientModified',
			options: {},
		});
		expect(shown({ event: 'clientModified' }, 1.1)).toEqual({
			authentication: 'apiKey',
			event: 'clientModified',
			simplify: true,
			options: {},
		});

		const { changed, emitted } = await emittedEvent({ event: 'clientModified' }, undefined, touch);

		expect(emitted).toEqual([
			expect.objectContaining({
				id: changed.id,
				lastModifiedAt: changed.lastModifiedAt,
				links: expect.any(Object),
			}),
		]);
		expect(emitted[0].entity).toMatchObject({ object: expect.any(String) }); // a reference: the list item
		expect(emitted[0]).not.toHaveProperty('partner');
	});

	it.each([
		['Client Created or Modified', { event: 'clientModified' }, touch],
		['AML Determination Completed', { event: 'amlDeterminationCompleted' }, complete],
		['Review Due', { event: 'reviewDue', days: 30 }, dueSoon],
	])('%s: the list item simplified, as Get Many outputs it', async (_event, parameters, happen) => {
		const { changed, emitted } = await emittedEvent(parameters, 1.1, happen);

		expect(emitted).toEqual([simplifiedClient(changed, true)]);
	});

	it.each([
		['Client Created or Modified', { event: 'clientModified' }, touch],
		['AML Determination Completed', { event: 'amlDeterminationCompleted' }, complete],
		['Review Due', { event: 'reviewDue', days: 30 }, dueSoon],
	])(
		"%s with 'Fetch Full Client': the client simplified as Get outputs it, partner and manager by name",
		async (_event, parameters, happen) => {
			const { changed, emitted } = await emittedEvent(
				{ ...parameters, options: { fetchFullClient: true } },
				1.1,
				happen,
			);

			expect(emitted).toEqual([simplifiedClient(changed)]);
			expect(emitted[0]).toMatchObject({
				partner: changed.partner!.name,
				manager: changed.manager!.name,
			});
		},
	);

	it("Simplify off, with 'Fetch Full Client': the client as the service sends it", async () => {
		const { changed, emitted } = await emittedEvent(
			{ event: 'clientModified', simplify: false, options: { fetchFullClient: true } },
			1.1,
			touch,
		);

		expect(emitted).toEqual([changed]);
	});

	it('Fetch Test Event shows the simplified output', async () => {
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: busy.credentials(),
			typeVersion: 1.1,
		});

		const { json, error } = await poller.fetchTestEvent();

		expect(error).toBeUndefined();
		expect(json.length).toBeGreaterThan(0);
		for (const client of json) expect(Object.keys(client)).toEqual(SIMPLIFIED_KEYS.clientListItem);
	});
});
