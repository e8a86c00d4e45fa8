/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * The end-to-end environment: one sandbox and one real n8n for the whole run (jest's global
 * setup starts them; every test file shares them), provisioned like `npm start` provisions the
 * demo: owner, credentials, the example workflows published. Tests reach both over HTTP, and
 * run workflows with `n8n execute`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type LoggedRequest, type Sandbox } from 'compliance-records-sandbox';
import { DEMO_OWNER, everyMinuteTrigger, provisionDemo, type DemoSetup, type WorkflowJson } from '../helpers/n8n/demo';
import {
	executeWorkflow,
	freePort,
	N8n,
	N8nRest,
	type ExecutionRun,
	type N8nOptions,
} from '../helpers/n8n/instance';
import { sandboxControlAt } from '../helpers/sandboxControl';
import { serviceCall } from '../helpers/serviceApi';

export { executionRun, executionsOf, nodeOutput, waitFor } from '../helpers/n8n/instance';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
export const ARTIFACTS_DIR = join(PROJECT_ROOT, 'test-artifacts', 'e2e');

/** Everything a test needs to reach the running environment (passed from global setup as JSON). */
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

const CONTEXT_VARIABLE = 'COMPLIANCE_RECORDS_E2E';

interface Running {
	n8n?: N8n;
	sandbox?: Sandbox;
}

let running: Running = {};

export async function startEnvironment(): Promise<void> {
	rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
	mkdirSync(ARTIFACTS_DIR, { recursive: true });
	const n8nPort = await freePort();
	const n8nOptions: N8nOptions = {
		userFolder: join(ARTIFACTS_DIR, 'n8n'),
		linkedPackage: PROJECT_ROOT,
		port: n8nPort,
		brokerPort: await freePort(),
		filesDir: join(ARTIFACTS_DIR, 'files'),
		logFile: join(ARTIFACTS_DIR, 'n8n.log'),
	};
	try {
		running.sandbox = await startSandbox({
			clients: 250,
			controls: true,
			redirectUris: [`http://localhost:${n8nPort}/rest/oauth2-credential/callback`],
		});
		const { sandbox } = running;
		running.n8n = N8n.launch(n8nOptions);
		await running.n8n.ready();
		const mcpToken = randomBytes(24).toString('base64url');
		const demo = await provisionDemo(running.n8n, sandbox, { filesDir: n8nOptions.filesDir, mcpToken });
		const probe = await publishProbe(running.n8n.rest, sandbox);
		const context: E2eContext = {
			n8nUrl: running.n8n.url,
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
		process.env[CONTEXT_VARIABLE] = JSON.stringify(context);
	} catch (error) {
		await stopEnvironment();
		throw error;
	}
}

export async function stopEnvironment(): Promise<void> {
	await running.n8n?.stop();
	await running.sandbox?.close();
	running = {};
}

/**
 * A published trigger on the sandbox's other firm, so that no other test's change reaches it:
 * trigger.test.ts alone decides what it sees. Its own credential, so its polls can be told
 * apart in the sandbox's request log.
 */
async function publishProbe(rest: N8nRest, sandbox: Sandbox): Promise<E2eContext['probe']> {
	const apiKey = sandbox.otherFirm.apiKey;
	const credential = await rest.createCredential('Other firm (trigger probe)', 'complianceRecordsApi', { baseUrl: sandbox.baseUrl, apiKey });
	const workflowId = await rest.publishWorkflow({
		name: 'Trigger probe',
		nodes: [everyMinuteTrigger('CUSTOM.complianceRecordsTrigger', 'Client created or modified', { complianceRecordsApi: credential })],
	});
	return { workflowId, apiKey };
}

export function e2e(): E2eContext {
	const json = process.env[CONTEXT_VARIABLE];
	if (!json) throw new Error('The e2e environment is not running: run the suite with `npm run test:e2e`');
	return JSON.parse(json) as E2eContext;
}

/** The REST API of the running n8n, signed in as the demo owner. */
export async function signedIn(): Promise<N8nRest> {
	const rest = new N8nRest(e2e().n8nUrl);
	await rest.signInOwner(DEMO_OWNER);
	return rest;
}

/** Saves a workflow (nodes of this package typed `CUSTOM.`, as loaded here) and runs it with `n8n execute`. */
export async function runWorkflow(rest: N8nRest, workflow: WorkflowJson): Promise<ExecutionRun> {
	const saved = await rest.request<{ id: string }>('POST', '/workflows', workflow);
	return await executeWorkflow(e2e().n8nOptions, saved.id);
}

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

/** The sandbox's test controls, over HTTP (the sandbox runs in jest's parent process). */
export const sandboxControl = <T = unknown>(method: string, route: string, body?: unknown) =>
	sandboxControlAt<T>(new URL(e2e().sandbox.baseUrl).origin, method, route, body);

export const sandboxRequests = () => sandboxControl<LoggedRequest[]>('GET', '/requests');
