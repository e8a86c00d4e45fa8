/**
 * A Retry from the executions list, in the real n8n 2.40.7: a published workflow whose Client >
 * Create failed part-way is retried from the failed execution's saved data. The clients created
 * before the failure are output again, not created again, with or without reference numbers
 * (helpers/writes.ts keeps its log in the node context, which n8n saves with the execution).
 */
import { randomUUID } from 'node:crypto';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { createEachClient } from '../helpers/bulkCreate';
import { webhookNode } from '../helpers/n8n/demo';
import { newApiKeyCredential } from '../helpers/sandboxControl';
import { listAll } from '../helpers/serviceApi';
import {
	e2e,
	executionRun,
	executionsOf,
	nodeOutput,
	sandboxControl,
	signedIn,
	waitFor,
} from './environment';

const NODE_NAME = 'Create clients';

test.each([
	['with reference numbers', true, ['POST 409'], 5 + 2],
	['without reference numbers', false, [], 5 + 3],
])(
	'a Retry from the executions list creates no client twice, and outputs every item (%s)',
	async (_case, withReference, postsByRetry, getsByRetry) => {
		const { n8nUrl, sandbox } = e2e();
		const rest = await signedIn();
		const credential = await newApiKeyCredential(rest, sandbox.baseUrl, `Retry ${randomUUID()}`);
		const batch = randomUUID().slice(0, 8);
		const clients = Array.from({ length: 6 }, (_, index) => ({
			lastName: `Retry ${batch} no. ${index}`,
			reference: `RETRY-${batch}-${index}`,
		}));
		const referenceNumber = withReference ? { referenceNumber: '={{ $json.reference }}' } : {};
		const path = `retry-${batch}`;
		const workflowId = await rest.publishWorkflow({
			name: 'Clients from a webhook',
			nodes: [
				webhookNode(path),
				{
					id: randomUUID(),
					name: 'Split Out',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [240, 0],
					parameters: { fieldToSplitOut: 'body.clients', options: {} },
				},
				{
					id: randomUUID(),
					name: NODE_NAME,
					type: 'CUSTOM.complianceRecords',
					typeVersion: 2,
					position: [480, 0],
					parameters: { ...createEachClient, additionalFields: referenceNumber },
					credentials: { complianceRecordsApi: { id: credential.id, name: credential.name } },
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
				'Split Out': { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
			},
		});
		// The fourth create is made, then its answer lost: the execution fails.
		await sandboxControl('POST', '/faults', {
			count: 1,
			status: 503,
			path: '/clients',
			apiKey: credential.apiKey,
			after: 3,
			afterHandling: true,
		});
		await waitFor(
			'the webhook to be registered and the execution to fail',
			async () => {
				const answer = await fetch(`${n8nUrl}/webhook/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ clients }),
				});
				return answer.status === 404 ? undefined : answer;
			},
			{ timeoutMs: 10_000, intervalMs: 250 },
		);
		const [failed] = await waitFor(
			'the failed execution',
			async () => {
				const executions = await executionsOf(rest, workflowId);
				return executions.some((execution) => execution.status === 'error')
					? executions
					: undefined;
			},
			{ timeoutMs: 10_000 },
		);
		const sentBefore = (await sandboxControl<LoggedRequest[]>('GET', '/requests')).length;

		const retried = await rest.request<{ id: string }>('POST', `/executions/${failed.id}/retry`, {
			loadWorkflow: false,
		});

		const run = await executionRun(rest, retried.id);
		expect(run.status).toBe('success');
		expect(nodeOutput(run, NODE_NAME).map((client) => client.name)).toEqual(
			clients.map((client) => `Ada ${client.lastName}`),
		);
		const names = (await listAll(sandbox)).map((client) => client.name);
		expect(
			clients.map((client) => names.filter((name) => name === `Ada ${client.lastName}`).length),
		).toEqual([1, 1, 1, 1, 1, 1]);
		// The retry: the created clients read again by their IDs; the one whose answer was lost found
		// by its reference number (409, the changes since, the client), or else by what it sent (the
		// service's time, the changes since, the client).
		const sentByRetry = (await sandboxControl<LoggedRequest[]>('GET', '/requests'))
			.slice(sentBefore)
			.filter((request) => request.headers.authorization === `Bearer ${credential.apiKey}`)
			.map((request) => `${request.method} ${request.status}`);
		expect(sentByRetry.filter((request) => request.startsWith('POST'))).toEqual(postsByRetry);
		expect(sentByRetry.filter((request) => request === 'GET 200')).toHaveLength(getsByRetry);
	},
);
