/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The Compliance Records Trigger published in three real n8n instances, one per way n8n runs a
 * polling trigger: its in-memory poller; its durable scheduler (N8N_SCHEDULER_ENABLED,
 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED); and the durable scheduler with durable cursors
 * (N8N_POLLER_DURABLE_CURSORS_ENABLED, with the workflow publication service). Changes made right
 * after activation, before n8n's first scheduled poll, and a later one: each emitted once, by
 * one execution, under each. The three run at once, against a sandbox of their own, each with
 * its own API key (so the sandbox's log tells their polls apart).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { startSandbox, type LoggedRequest, type Sandbox } from 'compliance-records-sandbox';
import { DEMO_OWNER, everyMinuteTrigger } from '../helpers/n8n/demo';
import { freePort, N8n } from '../helpers/n8n/instance';
import { clientIds, touchClient } from '../helpers/serviceApi';
import {
	ARTIFACTS_DIR,
	executionRun,
	executionsOf,
	nodeOutput,
	PROJECT_ROOT,
	waitFor,
} from './environment';

const SCHEDULER = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' };
const SETTINGS: Array<{ name: string; env: Record<string, string> }> = [
	{ name: 'in-memory poller', env: {} },
	{ name: 'durable scheduler', env: SCHEDULER },
	{
		name: 'durable scheduler with durable cursors',
		env: {
			...SCHEDULER,
			N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
			N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
		},
	},
];
const TRIGGER = 'Client created or modified';
const POLL_WAIT_MS = 150_000; // a poll a minute, plus n8n's scheduling slack on a busy machine

interface Instance {
	name: string;
	n8n: N8n;
	apiKey: string;
	workflowId?: string;
}

let sandbox: Sandbox;
const instances: Instance[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ clients: 60, controls: true });
	const root = join(ARTIFACTS_DIR, 'schedulers');
	rmSync(root, { recursive: true, force: true });
	for (const [index, { name, env }] of SETTINGS.entries()) {
		const folder = join(root, String(index));
		mkdirSync(folder, { recursive: true });
		const n8n = N8n.launch({
			userFolder: folder,
			linkedPackage: PROJECT_ROOT,
			port: await freePort(),
			brokerPort: await freePort(),
			filesDir: join(folder, 'files'),
			logFile: join(folder, 'n8n.log'),
			env,
		});
		instances.push({ name, n8n, apiKey: sandbox.createApiKey({ name }) });
	}
	await Promise.all(instances.map((instance) => instance.n8n.ready(240_000)));
	await Promise.all(instances.map(publishTrigger));
}, 300_000);

afterAll(async () => {
	await Promise.all(instances.map((instance) => instance.n8n.stop()));
	await sandbox?.close();
});

async function publishTrigger(instance: Instance): Promise<void> {
	const { rest } = instance.n8n;
	await rest.signInOwner(DEMO_OWNER);
	const credential = await rest.createCredential(instance.name, 'complianceRecordsApi', {
		baseUrl: sandbox.baseUrl,
		apiKey: instance.apiKey,
	});
	instance.workflowId = await rest.publishWorkflow({
		name: `Trigger under the ${instance.name}`,
		nodes: [
			everyMinuteTrigger('CUSTOM.complianceRecordsTrigger', TRIGGER, {
				complianceRecordsApi: credential,
			}),
		],
	});
}

const requestsOf = (instance: Instance): LoggedRequest[] =>
	sandbox
		.requests()
		.filter((request) => request.headers.authorization === `Bearer ${instance.apiKey}`);

/** Waits until the instance has polled (at least `atLeast` requests, all answered, none since 3 s). */
async function polled(instance: Instance, atLeast: number): Promise<void> {
	let last = -1;
	await waitFor(
		`a poll of the trigger under the ${instance.name}`,
		async () => {
			const requests = requestsOf(instance);
			const settled =
				requests.length >= atLeast &&
				requests.length === last &&
				requests.every((request) => request.status);
			last = requests.length;
			return settled ? true : undefined;
		},
		{ timeoutMs: POLL_WAIT_MS, intervalMs: 3_000 },
	);
}

/** What each execution of the instance's trigger emitted, oldest execution first. */
async function emissions(instance: Instance): Promise<string[][]> {
	const { rest } = instance.n8n;
	const executions = (await executionsOf(rest, instance.workflowId as string)).reverse();
	const emitted: string[][] = [];
	for (const execution of executions) {
		expect(execution).toMatchObject({ status: 'success', mode: 'trigger' });
		const run = await executionRun(rest, execution.id);
		emitted.push(
			nodeOutput(run, TRIGGER)
				.map((client) => `${client.id}@${client.lastModifiedAt}`)
				.sort(),
		);
	}
	return emitted;
}

async function executionsReach(instance: Instance, count: number): Promise<string[][]> {
	return await waitFor(
		`${count} finished execution(s) of the trigger under the ${instance.name}`,
		async () => {
			const executions = await executionsOf(instance.n8n.rest, instance.workflowId as string);
			const finished = executions.every(
				(execution) => !['new', 'running', 'waiting'].includes(execution.status),
			);
			return executions.length >= count && finished ? await emissions(instance) : undefined;
		},
		{ timeoutMs: POLL_WAIT_MS, intervalMs: 3_000 },
	);
}

/** A change by the firm's users; what the trigger should emit for it: `id@lastModifiedAt`. */
async function touch(clientId: string): Promise<string> {
	const client = await touchClient(sandbox, clientId);
	return `${client.id}@${client.lastModifiedAt}`;
}

test('under each scheduler setting, changes right after activation and a later one are each emitted once', async () => {
	// The poll n8n runs on activation: the service's time, then the changes since then.
	await Promise.all(instances.map((instance) => polled(instance, 2)));
	const firstPoll = new Map(instances.map((instance) => [instance, requestsOf(instance).length]));
	const ids = await clientIds(sandbox);

	const rightAfter = [await touch(ids[0]), await touch(ids[1])].sort();
	// n8n's first scheduled poll emits them, whichever scheduler runs it.
	const first = await Promise.all(instances.map((instance) => executionsReach(instance, 1)));
	for (const emitted of first) expect(emitted).toEqual([rightAfter]);
	for (const instance of instances)
		expect(requestsOf(instance).length).toBeGreaterThan(firstPoll.get(instance) as number);

	const later = [await touch(ids[2])];
	const second = await Promise.all(instances.map((instance) => executionsReach(instance, 2)));
	for (const emitted of second) expect(emitted).toEqual([rightAfter, later]);

	// One more poll each, with nothing new: no third execution.
	const seen = new Map(instances.map((instance) => [instance, requestsOf(instance).length]));
	await Promise.all(
		instances.map((instance) => polled(instance, (seen.get(instance) as number) + 1)),
	);
	for (const instance of instances) expect(await emissions(instance)).toEqual([rightAfter, later]);
});
