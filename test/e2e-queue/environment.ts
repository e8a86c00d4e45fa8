/* eslint-disable @n8n/community-nodes/no-restricted-imports --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * n8n 2.40.7 in queue mode (test/helpers/n8n/queueMode.ts): PostgreSQL, Redis, a main and a worker,
 * the package installed into each instance's `~/.n8n/nodes` as the README tells users. The main
 * has the demo owner, an API key credential, a published trigger (Client Created or Modified,
 * every minute) and a published webhook workflow that creates a client. Both instances log at
 * debug level, so their logs show who polls and who executes.
 */
import { join } from 'node:path';

import type { Sandbox } from 'compliance-records-sandbox';
import { untilFirstPoll } from '../helpers/n8n/delivery';
import { DEMO_OWNER, everyMinuteTrigger, webhookNode } from '../helpers/n8n/demo';
import { e2eSuite, PROJECT_ROOT, sandboxControlsAt, signedInAt } from '../helpers/n8n/e2eSuite';
import { packPackage, PACKAGE_NAME, type N8n, type N8nRest } from '../helpers/n8n/instance';
import { QueueMode } from '../helpers/n8n/queueMode';

export const TRIGGER_NAME = 'Client created or modified';
export const WEBHOOK_PATH = 'queue-mode-create-client';

export interface QueueContext {
	mainUrl: string;
	mainLog: string;
	workerLog: string;
	sandbox: { baseUrl: string; apiKey: string };
	triggerWorkflowId: string;
	webhookWorkflowId: string;
	/** When the trigger had taken its first poll (ms since epoch): changes after it must be emitted. */
	watchingSince: number;
}

export const suite = e2eSuite<QueueContext>(
	'e2e-queue',
	async ({ artifacts, sandbox: startSandbox, stopAtEnd }) => {
		const sandbox = await startSandbox({ clients: 250, controls: true });
		const tarball = await packPackage(PROJECT_ROOT, artifacts);
		const queueMode = await new QueueMode({
			dir: artifacts,
			tarball,
			env: { N8N_LOG_LEVEL: 'debug' },
		}).start();
		stopAtEnd(() => queueMode.stop());
		const main = queueMode.main as N8n;
		const { triggerWorkflowId, webhookWorkflowId } = await provision(main, sandbox);
		return {
			mainUrl: main.url,
			mainLog: join(artifacts, 'main.log'),
			workerLog: join(artifacts, 'worker.log'),
			sandbox: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey },
			triggerWorkflowId,
			webhookWorkflowId,
			watchingSince: Date.now(),
		};
	},
);

async function provision(
	main: N8n,
	sandbox: Sandbox,
): Promise<{ triggerWorkflowId: string; webhookWorkflowId: string }> {
	const rest = main.rest;
	await rest.signInOwner(DEMO_OWNER);
	const credentials = {
		complianceRecordsApi: await rest.createCredential(
			'Compliance Records (API key)',
			'complianceRecordsApi',
			{
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.apiKey,
			},
		),
	};
	const triggerWorkflowId = await rest.publishWorkflow({
		name: 'Trigger',
		nodes: [
			everyMinuteTrigger(`${PACKAGE_NAME}.complianceRecordsTrigger`, TRIGGER_NAME, credentials),
		],
	});
	const webhookWorkflowId = await rest.publishWorkflow({
		name: 'Create a client from a webhook',
		nodes: [
			webhookNode(WEBHOOK_PATH),
			{
				id: 'c3f0c3d2-0000-4000-8000-000000000006',
				name: 'Create client',
				type: `${PACKAGE_NAME}.complianceRecords`,
				typeVersion: 1,
				position: [240, 0],
				parameters: {
					resource: 'client',
					operation: 'create',
					status: 'PROSPECT',
					entityType: 'individual',
					firstName: 'Queue',
					lastName: '={{ $json.body.lastName }}',
				},
				credentials,
			},
		],
		connections: { Webhook: { main: [[{ node: 'Create client', type: 'main', index: 0 }]] } },
	});
	await untilFirstPoll(rest, triggerWorkflowId, TRIGGER_NAME, 'the published trigger');
	return { triggerWorkflowId, webhookWorkflowId };
}

export const queue = suite.context;

/** The main's REST API, signed in as the demo owner. */
export const signedIn = async (): Promise<N8nRest> => await signedInAt(queue().mainUrl);

export const { sandboxControl } = sandboxControlsAt(() => queue().sandbox.baseUrl);
