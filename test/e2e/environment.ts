/* eslint-disable @n8n/community-nodes/no-restricted-imports --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * The e2e suite: one sandbox and one real n8n 2.40.7 for every test file, the package linked and
 * provisioned as `npm start` provisions the demo (owner, credentials, the examples published),
 * and a trigger on the other firm that trigger.test.ts watches. Tests run workflows with
 * `n8n execute`.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';
import type { Sandbox } from 'compliance-records-sandbox';
import {
	DEMO_OWNER,
	everyMinuteTrigger,
	provisionDemo,
	type DemoSetup,
	type WorkflowJson,
} from '../helpers/n8n/demo';
import {
	artifactsOf,
	e2eSuite,
	PROJECT_ROOT,
	sandboxControlsAt,
	saveAndRun,
	signedInAt,
} from '../helpers/n8n/e2eSuite';
import {
	freePort,
	N8n,
	type ExecutionRun,
	type N8nOptions,
	type N8nRest,
} from '../helpers/n8n/instance';
import { serviceCall } from '../helpers/serviceApi';

export { executionRun, executionsOf, nodeOutput, waitFor } from '../helpers/n8n/instance';
export { PROJECT_ROOT };

export const ARTIFACTS_DIR = artifactsOf('e2e');

/** Everything a test needs to reach the running environment. */
export interface E2eContext {
	n8nUrl: string;
	n8nOptions: N8nOptions;
	sandbox: {
		baseUrl: string;
		authUrl: string;
		apiKey: string;
		oauthClientId: string;
		otherFirm: { id: string; apiKey: string };
	};
	demo: DemoSetup;
	/** The bearer token the MCP example's trigger requires. */
	mcpToken: string;
	/** A published Client Created or Modified trigger of the other firm, watched by trigger.test.ts. */
	probe: { workflowId: string; apiKey: string };
	/** When the examples and the probe were published (ms since epoch). */
	publishedAt: number;
}

export const suite = e2eSuite<E2eContext>(
	'e2e',
	async ({ artifacts, sandbox: startSandbox, stopAtEnd }) => {
		const n8nPort = await freePort();
		const n8nOptions: N8nOptions = {
			userFolder: join(artifacts, 'n8n'),
			linkedPackage: PROJECT_ROOT,
			port: n8nPort,
			brokerPort: await freePort(),
			filesDir: join(artifacts, 'files'),
			logFile: join(artifacts, 'n8n.log'),
		};
		const sandbox = await startSandbox({
			clients: 250,
			controls: true,
			redirectUris: [`http://localhost:${n8nPort}/rest/oauth2-credential/callback`],
		});
		const n8n = N8n.launch(n8nOptions);
		stopAtEnd(() => n8n.stop());
		await n8n.ready();
		// The probe's credential first: n8n gives a new node the credential saved last, and the
		// editor test needs the demo's, as in npm start.
		await n8n.rest.signInOwner(DEMO_OWNER);
		const probe = await publishProbe(n8n.rest, sandbox);
		const mcpToken = randomBytes(24).toString('base64url');
		const demo = await provisionDemo(n8n, sandbox, { filesDir: n8nOptions.filesDir, mcpToken });
		return {
			n8nUrl: n8n.url,
			n8nOptions,
			sandbox: {
				baseUrl: sandbox.baseUrl,
				authUrl: sandbox.authUrl,
				apiKey: sandbox.apiKey,
				oauthClientId: sandbox.oauthClientId,
				otherFirm: { id: sandbox.otherFirm.id, apiKey: sandbox.otherFirm.apiKey },
			},
			demo,
			mcpToken,
			probe,
			publishedAt: Date.now(),
		};
	},
);

/**
 * A published trigger on the sandbox's other firm, so that no other test's change reaches it:
 * trigger.test.ts alone decides what it sees. Its own credential, so its polls can be told
 * apart in the sandbox's request log.
 */
async function publishProbe(rest: N8nRest, sandbox: Sandbox): Promise<E2eContext['probe']> {
	const apiKey = sandbox.otherFirm.apiKey;
	const credential = await rest.createCredential(
		'Other firm (trigger probe)',
		'complianceRecordsApi',
		{ baseUrl: sandbox.baseUrl, apiKey },
	);
	const workflowId = await rest.publishWorkflow({
		name: 'Trigger probe',
		nodes: [
			everyMinuteTrigger('CUSTOM.complianceRecordsTrigger', 'Client created or modified', {
				complianceRecordsApi: credential,
			}),
		],
	});
	return { workflowId, apiKey };
}

export const e2e = suite.context;

/** The REST API of the running n8n, signed in as the demo owner. */
export const signedIn = async (): Promise<N8nRest> => await signedInAt(e2e().n8nUrl);

/** Saves a workflow (nodes of this package typed `CUSTOM.`, as loaded here) and runs it with `n8n execute`. */
export const runWorkflow = async (rest: N8nRest, workflow: WorkflowJson): Promise<ExecutionRun> =>
	await saveAndRun(rest, e2e().n8nOptions, workflow);

/** A request to the service's API, as any client of it would send it. */
export async function serviceRequest<T = Record<string, unknown>>(
	method: string,
	path: string,
	options: { body?: IDataObject; apiKey?: string } = {},
): Promise<T> {
	const { sandbox } = e2e();
	const access = { baseUrl: sandbox.baseUrl, apiKey: options.apiKey ?? sandbox.apiKey };
	return (await serviceCall(access, method, path, options.body)).data as T;
}

export const { sandboxControl, sandboxRequests } = sandboxControlsAt(() => e2e().sandbox.baseUrl);
