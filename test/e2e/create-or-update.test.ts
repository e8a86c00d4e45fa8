/**
 * Client > Create or Update in production, in the real n8n 2.40.7: a published webhook workflow
 * run twice. n8n saves the node's index in the workflow's static data after the first
 * execution, and the second reads it: the changes since and the update.
 */
import { randomUUID } from 'node:crypto';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { waitFor } from '../helpers/n8n/instance';
import { newApiKeyCredential } from '../helpers/sandboxControl';
import { e2e, sandboxRequests, serviceRequest, signedIn } from './environment';

const NODE_NAME = 'Create or update client';

/** A request in a few words: method, path, whether it lists the changes since, and the status answered. */
const summary = ({ method, path, query, status }: LoggedRequest) =>
	`${method} ${path}${query.sinceModifiedAt ? ' changed since' : ''} ${status}`;

test('a webhook workflow run twice in production: the second execution costs the changes since and the update', async () => {
	const rest = await signedIn();
	// A key of its own, so that the node's requests are told apart in the request log.
	const credential = await newApiKeyCredential(rest, e2e().sandbox.baseUrl, 'Create or Update, run twice');
	const referenceNumber = `E2E-${randomUUID()}`;
	const client = await serviceRequest<{ id: string }>('POST', '/clients', {
		body: { status: 'PROSPECT', referenceNumber, entity: { object: 'individual', firstName: 'Grace', lastName: 'Hopper' } },
	});
	const path = `create-or-update-${randomUUID()}`;
	const workflowId = await rest.publishWorkflow({
		name: 'Create or Update from a webhook',
		nodes: [
			{
				id: randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
			},
			{
				id: randomUUID(),
				name: NODE_NAME,
				type: 'CUSTOM.complianceRecords',
				typeVersion: 2,
				position: [240, 0],
				parameters: {
					resource: 'client',
					operation: 'upsert',
					referenceNumber: '={{ $json.body.reference }}',
					status: 'EXISTING',
					entityType: 'individual',
					firstName: 'Grace',
					lastName: 'Hopper',
					additionalFields: { nextReviewDate: '={{ $json.body.review }}' },
					simplify: false,
				},
				credentials: { complianceRecordsApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: { Webhook: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
	});
	const savedIndex = async () => {
		const workflow = await rest.request<{ staticData?: Record<string, Record<string, unknown>> | null }>('GET', `/workflows/${workflowId}`);
		return workflow.staticData?.[`node:${NODE_NAME}`]?.referenceIndex as { clients: string[] } | undefined;
	};
	const execute = async (review: string) => {
		const before = (await sandboxRequests()).length;
		const response = await fetch(`${e2e().n8nUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ reference: referenceNumber, review }),
		});
		expect(response.status).toBe(200);
		const output = (await response.json()) as Record<string, unknown>;
		const sent = (await sandboxRequests()).slice(before).filter((request) => request.headers.authorization === `Bearer ${credential.apiKey}`);
		return { output, sent: sent.map(summary) };
	};

	const first = await execute('2027-10-31');

	expect(first.output).toMatchObject({ id: client.id, referenceNumber, state: 'EXISTING', nextReviewDate: '2027-10-31' });
	expect(first.sent[0]).toBe('POST /clients 409');
	expect(first.sent.slice(1, -1)).toEqual(Array(first.sent.length - 2).fill('GET /clients 200'));
	expect(first.sent.at(-1)).toBe(`PATCH /clients/${client.id} 200`);
	// n8n saves the static data once the execution is over: keyed hashes and client IDs only.
	const index = await waitFor('the index n8n saves after the execution', savedIndex, { timeoutMs: 10_000, intervalMs: 200 });
	expect(JSON.stringify(index)).toContain(client.id);
	expect(JSON.stringify(index)).not.toContain(referenceNumber);

	const second = await execute('2027-11-30');

	expect(second.output).toMatchObject({ id: client.id, referenceNumber, nextReviewDate: '2027-11-30' });
	expect(second.sent).toEqual(['GET /clients changed since 200', `PATCH /clients/${client.id} 200`]);
});
