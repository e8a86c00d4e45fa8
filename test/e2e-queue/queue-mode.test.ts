/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
/**
 * The package in n8n's queue mode (environment.ts): a production execution of the action node
 * runs on the worker; the trigger polls on the main, and every change of the service is executed
 * once, by the worker; Create or Update keeps what it learned in the worker's process. Where
 * each thing ran is read from the two instances' logs: the main logs "Enqueued execution E" and
 * its polls, the worker "Worker started execution E".
 */
import { readFileSync } from 'node:fs';

import { countDelivery, triggerEmissions, type Change } from '../helpers/n8n/delivery';
import { executionsOf, PACKAGE_NAME, waitFor } from '../helpers/n8n/instance';
import { publishUpsertWebhook } from '../helpers/n8n/upsertWebhook';
import { clientIds, touchClient } from '../helpers/serviceApi';
import { queue, sandboxControl, signedIn, TRIGGER_NAME, WEBHOOK_PATH } from './environment';

const mainLog = () => readFileSync(queue().mainLog, 'utf8');
const workerLog = () => readFileSync(queue().workerLog, 'utf8');

/** Where an execution ran: enqueued by the main, started and finished by the worker. */
function expectRunByWorker(executionId: string) {
	expect(mainLog()).toMatch(new RegExp(`Enqueued execution ${executionId} \\(job \\d+\\)`));
	expect(workerLog()).toMatch(new RegExp(`Worker started execution ${executionId} \\(job \\d+\\)`));
	expect(workerLog()).toMatch(
		new RegExp(`Worker finished execution ${executionId} \\(job \\d+\\)`),
	);
}

test('a production execution of the action node runs on the worker', async () => {
	const lastName = `Queue-${Date.now()}`;

	const response = await fetch(`${queue().mainUrl}/webhook/${WEBHOOK_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ lastName }),
	});

	expect(response.status).toBe(200);
	const created = (await response.json()) as { id: string; name: string };
	expect(created).toMatchObject({ object: 'client', name: `Queue ${lastName}` });
	const executions = await executionsOf(await signedIn(), queue().webhookWorkflowId);
	expect(executions).toEqual([expect.objectContaining({ status: 'success', mode: 'webhook' })]);
	expectRunByWorker(executions[0].id);
});

test('the trigger polls on the main; each change is executed once, by the worker', async () => {
	const { watchingSince, sandbox, triggerWorkflowId } = queue();
	const rest = await signedIn();
	// Twenty changes made by the service's users, in two bursts a poll apart.
	const ids = (await clientIds(sandbox)).slice(0, 20);
	expect(ids).toHaveLength(20);
	const burst = async (some: string[]) => {
		for (const id of some) await touchClient(sandbox, id);
	};
	await burst(ids.slice(0, 10));
	await waitFor(
		'the first burst to be executed',
		async () => ((await executionsOf(rest, triggerWorkflowId)).length > 0 ? true : undefined),
		{
			timeoutMs: 90_000,
			intervalMs: 2000,
		},
	);
	await burst(ids.slice(10));

	const changesSince = async () =>
		(await sandboxControl<Change[]>('GET', '/changes')).filter(
			(change) => Date.parse(change.lastModifiedAt) > watchingSince,
		);
	await waitFor(
		'every change to be executed',
		async () => {
			const delivery = countDelivery(
				await changesSince(),
				await triggerEmissions(rest, triggerWorkflowId, TRIGGER_NAME),
			);
			return delivery.lost.length === 0 ? true : undefined;
		},
		{ timeoutMs: 150_000, intervalMs: 5000 },
	);
	await new Promise((resolve) => setTimeout(resolve, 65_000)); // one more poll: nothing new, nothing twice

	const changes = await changesSince();
	const delivery = countDelivery(
		changes,
		await triggerEmissions(rest, triggerWorkflowId, TRIGGER_NAME),
	);
	expect(delivery).toMatchObject({ lost: [], repeated: [], unexpected: [] });
	expect(changes.length).toBeGreaterThanOrEqual(20);
	const executions = await executionsOf(rest, triggerWorkflowId);
	expect(executions.length).toBeGreaterThanOrEqual(2);
	for (const execution of executions) {
		expect(execution).toMatchObject({ status: 'success', mode: 'trigger' });
		expectRunByWorker(execution.id);
	}
	expect(mainLog()).toMatch(/Poll trigger initiated for workflow "Trigger"/);
	expect(workerLog()).not.toMatch(/Poll trigger initiated/);
});

/*
 * n8n 2.40.7 in queue mode hands the worker a new execution's workflow without its static data
 * and without its published state (the execution record keeps id, name, nodes, connections and
 * settings). Create or Update keeps what it learned in the worker's process instead, and writes
 * nothing in the workflow.
 */
test('Create or Update in queue mode: the second execution on the worker costs the changes since and the update, and nothing is written in the workflow', async () => {
	const rest = await signedIn();
	const workflow = await publishUpsertWebhook(rest, {
		n8nUrl: queue().mainUrl,
		nodeType: `${PACKAGE_NAME}.complianceRecords`,
		sandbox: queue().sandbox,
	});

	const first = await workflow.execute('2027-10-31');
	expect(first.sent[0]).toBe('POST /clients 409');
	expect(first.sent.slice(1, -1)).toEqual(
		Array(Math.max(2, first.sent.length - 2)).fill('GET /clients 200'),
	);
	expect(first.sent.at(-1)).toBe(`PATCH /clients/${workflow.client.id} 200`);
	const second = await workflow.execute('2027-11-30');

	expect(second.output).toMatchObject({
		id: workflow.client.id,
		referenceNumber: workflow.client.referenceNumber,
		nextReviewDate: '2027-11-30',
	});
	expect(second.sent).toEqual([
		'GET /clients changed since 200',
		`PATCH /clients/${workflow.client.id} 200`,
	]);
	const executions = await executionsOf(rest, workflow.workflowId);
	expect(executions).toEqual([
		expect.objectContaining({ status: 'success', mode: 'webhook' }),
		expect.objectContaining({ status: 'success', mode: 'webhook' }),
	]);
	for (const execution of executions) expectRunByWorker(execution.id);
	expect(await workflow.staticData()).toEqual({});
});
