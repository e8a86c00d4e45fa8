import { randomUUID } from 'node:crypto';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { serviceCall } from '../serviceApi';
import { newApiKeyCredential, sandboxControlAt } from '../sandboxControl';
import { waitFor, type N8nRest } from './instance';

const NODE_NAME = 'Create or update client';

export interface UpsertWebhook {
	workflowId: string;
	/** The client the workflow updates, made for it, and its reference number. */
	client: { id: string; referenceNumber: string };
	/** One production execution: the webhook called with the client's number and a review date. */
	execute(review: string): Promise<{ output: Record<string, unknown>; sent: string[] }>;
	/** The node's index as n8n saved it in the workflow's static data, if it did. */
	savedIndex(): Promise<{ clients: string[] } | undefined>;
}

/** A request in a few words: method, path, whether it lists the changes since, and the status answered. */
const summary = ({ method, path, query, status }: LoggedRequest) =>
	`${method} ${path}${query.sinceModifiedAt ? ' changed since' : ''} ${status}`;

/**
 * A published workflow as a CRM sync builds one: a Webhook, then Client > Create or Update with
 * the number from the call's body, on an API key of its own (so that its requests are told apart
 * in the sandbox's request log), for a client made for it.
 */
export async function publishUpsertWebhook(
	rest: N8nRest,
	{
		n8nUrl,
		nodeType,
		sandbox,
	}: { n8nUrl: string; nodeType: string; sandbox: { baseUrl: string; apiKey: string } },
): Promise<UpsertWebhook> {
	const origin = new URL(sandbox.baseUrl).origin;
	const credential = await newApiKeyCredential(
		rest,
		sandbox.baseUrl,
		`Create or Update ${randomUUID()}`,
	);
	const referenceNumber = `E2E-${randomUUID()}`;
	const entity = { object: 'individual', firstName: 'Grace', lastName: 'Hopper' };
	const client = (
		await serviceCall(sandbox, 'POST', '/clients', { status: 'PROSPECT', referenceNumber, entity })
	).data as { id: string };
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
				type: nodeType,
				typeVersion: 2,
				position: [240, 0],
				parameters: {
					resource: 'client',
					operation: 'upsert',
					referenceNumber: '={{ $json.body.reference }}',
					status: 'EXISTING',
					entityType: 'individual',
					firstName: entity.firstName,
					lastName: entity.lastName,
					additionalFields: { nextReviewDate: '={{ $json.body.review }}' },
					simplify: false,
				},
				credentials: { complianceRecordsApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: { Webhook: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
	});
	const requests = () => sandboxControlAt<LoggedRequest[]>(origin, 'GET', '/requests');

	return {
		workflowId,
		client: { id: client.id, referenceNumber },
		async execute(review) {
			const before = (await requests()).length;
			// n8n registers a published workflow's webhook a moment after publishing; until then it answers 404 and runs nothing.
			const response = await waitFor(
				'the webhook to be registered',
				async () => {
					const answer = await fetch(`${n8nUrl}/webhook/${path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ reference: referenceNumber, review }),
					});
					return answer.status === 404 ? undefined : answer;
				},
				{ timeoutMs: 10_000, intervalMs: 250 },
			);
			if (!response.ok)
				throw new Error(`The webhook answered ${response.status}: ${await response.text()}`);
			const sent = (await requests())
				.slice(before)
				.filter((request) => request.headers.authorization === `Bearer ${credential.apiKey}`);
			return {
				output: (await response.json()) as Record<string, unknown>,
				sent: sent.map(summary),
			};
		},
		async savedIndex() {
			const workflow = await rest.request<{
				staticData?: Record<string, Record<string, unknown>> | null;
			}>('GET', `/workflows/${workflowId}`);
			return workflow.staticData?.[`node:${NODE_NAME}`]?.referenceIndex as
				| { clients: string[] }
				| undefined;
		},
	};
}
