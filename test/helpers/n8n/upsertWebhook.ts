import { randomUUID } from 'node:crypto';

import type { LoggedRequest } from 'compliance-records-sandbox';
import { serviceCall, serviceGet } from '../serviceApi';
import { newApiKeyCredential, sandboxControlAt } from '../sandboxControl';
import { executionsOf, waitFor, type N8nRest } from './instance';
import { webhookNode, workflowNode } from './demo';

const NODE_NAME = 'Create or update client';

/** The node that keeps a mark in the workflow's static data, in the workflow that waits. */
const MARKING_NODE = 'Keep a mark';

export interface UpsertWebhook {
	workflowId: string;
	/** The client the workflow updates, made for it, and its reference number. */
	client: { id: string; referenceNumber: string };
	/** One production execution, once ended: the node's output (the stored client, when the webhook answered first) and its requests. */
	execute(review: string): Promise<{ output: Record<string, unknown>; sent: string[] }>;
	/** The workflow's static data as n8n saved it: every node's. */
	staticData(): Promise<Record<string, unknown>>;
}

/** A request in a few words: method, path, whether it lists the changes since, and the status answered. */
const summary = ({ method, path, query, status }: LoggedRequest) =>
	`${method} ${path}${query.sinceModifiedAt ? ' changed since' : ''} ${status}`;

/**
 * A published workflow as a CRM sync builds one: a Webhook, then Client > Create or Update with
 * the number from the call's body, on an API key of its own (so that its requests are told apart
 * in the sandbox's request log), for a client made for it. With `waitSeconds`, the webhook
 * answers at once, a Code node keeps a mark in the workflow's static data (as any node keeping
 * state between runs does), and a Wait holds the execution that long before Create or Update.
 */
export async function publishUpsertWebhook(
	rest: N8nRest,
	{
		n8nUrl,
		nodeType,
		sandbox,
		waitSeconds,
	}: {
		n8nUrl: string;
		nodeType: string;
		sandbox: { baseUrl: string; apiKey: string };
		waitSeconds?: number;
	},
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
	const waits = waitSeconds !== undefined;
	const chain = [
		webhookNode(path, waits ? 'onReceived' : 'lastNode'),
		...(waits
			? [
					workflowNode(MARKING_NODE, 'n8n-nodes-base.code', 2, {
						jsCode:
							"$getWorkflowStaticData('global').mark = $input.first().json.body.review;\nreturn $input.all();",
					}),
					workflowNode(
						'Wait',
						'n8n-nodes-base.wait',
						1.1,
						{ resume: 'timeInterval', amount: waitSeconds, unit: 'seconds' },
						{ webhookId: randomUUID() },
					),
				]
			: []),
		{
			...workflowNode(NODE_NAME, nodeType, 2, {
				resource: 'client',
				operation: 'upsert',
				referenceNumber: '={{ $json.body.reference }}',
				status: 'EXISTING',
				entityType: 'individual',
				firstName: entity.firstName,
				lastName: entity.lastName,
				additionalFields: { nextReviewDate: '={{ $json.body.review }}' },
				simplify: false,
			}),
			credentials: { complianceRecordsApi: { id: credential.id, name: credential.name } },
		},
	];
	const workflowId = await rest.publishWorkflow({
		name: 'Create or Update from a webhook',
		nodes: chain,
		connections: Object.fromEntries(
			chain
				.slice(0, -1)
				.map(({ name }, index) => [
					name,
					{ main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] },
				]),
		),
	});
	const requests = () => sandboxControlAt<LoggedRequest[]>(origin, 'GET', '/requests');
	/** Once `count` executions of the workflow have ended. */
	const ended = async (count: number) =>
		await waitFor(
			'the execution to end',
			async () => {
				const executions = await executionsOf(rest, workflowId);
				const over = executions.filter(
					(execution) => !['new', 'running', 'waiting'].includes(execution.status),
				);
				return over.length >= count ? true : undefined;
			},
			{ timeoutMs: 180_000, intervalMs: 1_000 },
		);
	let executions = 0;

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
			const answered = (await response.json()) as Record<string, unknown>;
			await ended(++executions);
			const sent = (await requests())
				.slice(before)
				.filter((request) => request.headers.authorization === `Bearer ${credential.apiKey}`);
			const output = waits
				? (await serviceGet<{ data: Record<string, unknown> }>(sandbox, `/clients/${client.id}`))
						.data
				: answered;
			return { output, sent: sent.map(summary) };
		},
		async staticData() {
			const workflow = await rest.request<{ staticData?: Record<string, unknown> | null }>(
				'GET',
				`/workflows/${workflowId}`,
			);
			return workflow.staticData ?? {};
		},
	};
}
