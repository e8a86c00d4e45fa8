/**
 * The Compliance Records Trigger in a published workflow of the real n8n, polling every minute:
 * a change made in the service is picked up by the next poll, once; a poll with no change
 * starts no execution. The probe workflow watches the sandbox's other firm, which no other test
 * touches (see environment.ts).
 */
import type { LoggedRequest } from 'compliance-records-sandbox';
import type { N8nRest } from '../helpers/n8n/instance';
import {
	e2e,
	executionRun,
	executionsOf,
	nodeOutput,
	sandboxRequests,
	serviceRequest,
	signedIn,
	waitFor,
} from './environment';

const POLL_WAIT_MS = 90_000; // a poll a minute, plus n8n's own scheduling slack

let rest: N8nRest;

beforeAll(async () => {
	rest = await signedIn();
});

/** The probe's requests to the service so far (its credential is the other firm's key). */
async function probeRequests(): Promise<LoggedRequest[]> {
	const { probe } = e2e();
	return (await sandboxRequests()).filter(
		(request) => request.headers.authorization === `Bearer ${probe.apiKey}`,
	);
}

/**
 * Waits for the probe's next poll after `seen` requests to finish: new requests appeared and,
 * for a few seconds, no more came and all were answered.
 */
async function nextPollAfter(seen: number): Promise<number> {
	let last = -1;
	return await waitFor(
		'the next poll of the published trigger',
		async () => {
			const requests = await probeRequests();
			const settled =
				requests.length > seen &&
				requests.length === last &&
				requests.every((request) => request.status);
			last = requests.length;
			return settled ? requests.length : undefined;
		},
		{ timeoutMs: POLL_WAIT_MS, intervalMs: 3000 },
	);
}

test('a change is emitted by the next poll, once; a poll without changes starts nothing', async () => {
	const { probe } = e2e();
	const triggerName = 'Client created or modified';
	await nextPollAfter(0); // the first poll: it records where it starts
	expect(await executionsOf(rest, probe.workflowId)).toHaveLength(0);

	const [client] = await serviceRequest<Array<{ id: string }>>('GET', '/clients?limit=1', {
		apiKey: probe.apiKey,
	});
	const changed = await serviceRequest<{ id: string; lastModifiedAt: string }>(
		'PATCH',
		`/clients/${client.id}`,
		{
			apiKey: probe.apiKey,
			body: { referenceNumber: `E2E-TRIGGER-${Date.now()}` },
		},
	);

	const [execution] = await waitFor(
		'an execution of the published trigger',
		async () => {
			const executions = await executionsOf(rest, probe.workflowId);
			return executions.length > 0 ? executions : undefined;
		},
		{ timeoutMs: POLL_WAIT_MS, intervalMs: 2000 },
	);
	expect(execution).toMatchObject({ status: 'success', mode: 'trigger' });
	const run = await executionRun(rest, execution.id);
	expect(nodeOutput(run, triggerName)).toEqual([
		expect.objectContaining({ id: changed.id, lastModifiedAt: changed.lastModifiedAt }),
	]);

	// The poll after it sees no change: no second execution.
	await nextPollAfter((await probeRequests()).length);
	expect(await executionsOf(rest, probe.workflowId)).toHaveLength(1);
});
