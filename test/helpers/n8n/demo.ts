/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-hardcoded-secrets --
   development tooling, not a node: runs in Node, not in n8n; the demo owner's password is published (README.md) */
// Fills a running n8n with what the demo needs: the owner login, credentials that point at the
// sandbox (and the bearer token that guards the MCP example), and the example workflows,
// published. `npm start` and the end-to-end tests use it.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { N8n, Owner } from './instance';
import { N8nRestError, PACKAGE_NAME } from './instance';

const EXAMPLES_DIR = join(__dirname, '..', '..', '..', 'examples');

export const DEMO_OWNER: Owner = {
	email: 'demo@example.com',
	password: 'Compliance-Demo-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

/** The folder the shipped examples write to: the one n8n's Docker image lets file nodes use. */
const EXAMPLES_FILES_DIR = '/home/node/.n8n-files';

export const API_KEY_CREDENTIAL = 'Compliance Records sandbox (API key)';
export const OAUTH2_CREDENTIAL = 'Compliance Records sandbox (OAuth2)';
const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';

/** The Bearer Auth credential of the MCP example's trigger: MCP clients must send its token. */
const MCP_TOKEN_CREDENTIAL = 'Compliance Records MCP token';

/** The parts of a started sandbox the demo needs. */
export interface SandboxEndpoints {
	baseUrl: string;
	authUrl: string;
	apiKey: string;
	oauthClientId: string;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface WorkflowNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

/** One node of a workflow a test or the demo builds. */
export function workflowNode(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

/** The Manual Trigger ('Run') that `n8n execute` and the editor start a workflow at. */
export const manualTrigger = () => workflowNode('Run', 'n8n-nodes-base.manualTrigger', 1, {});

/** A Webhook node taking POSTs on `path`, answering with the last node's output unless told. */
export const webhookNode = (path: string, responseMode = 'lastNode') =>
	workflowNode(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode, options: {} },
		{ webhookId: randomUUID() },
	);

/**
 * A Compliance Records Trigger polling every minute (Client Created or Modified unless
 * `parameters` say otherwise), as the end-to-end suites and the crash-recovery harness publish it.
 */
export function everyMinuteTrigger(
	type: string,
	name: string,
	credentials: Record<string, { id: string; name: string }>,
	parameters: Record<string, unknown> = {},
): WorkflowNode {
	const polling = { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'clientModified' };
	return workflowNode(name, type, 1, { ...polling, options: {}, ...parameters }, { credentials });
}

export interface ImportedWorkflow {
	id: string;
	name: string;
	file: string;
}

export interface DemoSetup {
	credentials: { apiKey: string; oAuth2: string; mcpToken: string };
	examples: ImportedWorkflow[];
	/** The production URLs of the MCP Server Triggers of the examples. */
	mcpUrls: string[];
}

/** Signs in (creating the owner on first run), then creates or refreshes credentials and examples. */
export async function provisionDemo(
	n8n: N8n,
	sandbox: SandboxEndpoints,
	options: { filesDir: string; mcpToken: string },
): Promise<DemoSetup> {
	await n8n.rest.signInOwner(DEMO_OWNER);
	const credentials = {
		apiKey: await saveCredential(n8n, API_KEY_CREDENTIAL, 'complianceRecordsApi', {
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.apiKey,
		}),
		// PKCE with a public client: the sandbox's client id is all it needs. "Connect my account"
		// in the editor runs the authorization flow against the sandbox's authorization server.
		oAuth2: await saveCredential(n8n, OAUTH2_CREDENTIAL, 'complianceRecordsOAuth2Api', {
			baseUrl: sandbox.baseUrl,
			authServerUrl: sandbox.authUrl,
			clientId: sandbox.oauthClientId,
		}),
		mcpToken: await saveCredential(n8n, MCP_TOKEN_CREDENTIAL, 'httpBearerAuth', {
			token: options.mcpToken,
		}),
	};
	// Connected now: n8n gives a new node the credential of its types saved last, this one, and
	// the node's lists must fill at once.
	await n8n.rest.connectOAuth2(credentials.oAuth2);
	const examples: ImportedWorkflow[] = [];
	const mcpUrls: string[] = [];
	for (const file of exampleFiles()) {
		const workflow = adaptExample(readExample(file), {
			filesDir: options.filesDir,
			apiKeyCredential: { id: credentials.apiKey, name: API_KEY_CREDENTIAL },
			mcpTokenCredential: { id: credentials.mcpToken, name: MCP_TOKEN_CREDENTIAL },
		});
		const id = await publishWorkflow(n8n, workflow);
		examples.push({ id, name: workflow.name, file });
		for (const node of workflow.nodes.filter((candidate) => candidate.type === MCP_TRIGGER)) {
			mcpUrls.push(`${n8n.url}/mcp/${String(node.parameters.path)}`);
		}
	}
	return { credentials, examples, mcpUrls };
}

function exampleFiles(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.sort();
}

export function readExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

/**
 * Turns a shipped example into what this n8n runs: node types of the package loaded from the
 * custom folder (`CUSTOM.` instead of the package name, which is what an install from
 * Settings → Community Nodes gives), the demo's files folder, the sandbox's credential, and the
 * demo's bearer token on MCP Server Triggers.
 */
function adaptExample(
	workflow: WorkflowJson,
	options: {
		filesDir: string;
		apiKeyCredential: { id: string; name: string };
		mcpTokenCredential: { id: string; name: string };
	},
): WorkflowJson {
	const nodes = workflow.nodes.map((node) => {
		const adapted: WorkflowNode = JSON.parse(
			JSON.stringify(node).split(EXAMPLES_FILES_DIR).join(options.filesDir),
		) as WorkflowNode;
		if (node.type.startsWith(`${PACKAGE_NAME}.`)) {
			adapted.type = `CUSTOM.${node.type.slice(PACKAGE_NAME.length + 1)}`;
			adapted.credentials = { complianceRecordsApi: options.apiKeyCredential };
		}
		if (node.type === MCP_TRIGGER)
			adapted.credentials = { httpBearerAuth: options.mcpTokenCredential };
		return adapted;
	});
	return { ...workflow, nodes };
}

async function saveCredential(
	n8n: N8n,
	name: string,
	type: string,
	data: Record<string, unknown>,
): Promise<string> {
	const existing = await n8n.rest.request<Array<{ id: string; name: string; type: string }>>(
		'GET',
		'/credentials',
	);
	const found = existing.find((credential) => credential.name === name && credential.type === type);
	if (found) {
		// Same id, so workflows that use it keep working. The sandbox may run on other ports than
		// last time, and it forgets its OAuth2 tokens when it stops: point the credential at this
		// sandbox and drop any token from the last run.
		await n8n.rest.request('PATCH', `/credentials/${found.id}`, { name, type, data });
		if (type.endsWith('OAuth2Api'))
			await n8n.rest.request('DELETE', `/credentials/${found.id}/oauth-token`);
		return found.id;
	}
	return (await n8n.rest.createCredential(name, type, data)).id;
}

/**
 * Imports and publishes a workflow, replacing one of the same name: the sandbox's data is new on
 * every start, so a published trigger must start again from scratch, not from last run's cursor.
 */
async function publishWorkflow(n8n: N8n, workflow: WorkflowJson): Promise<string> {
	const existing = await n8n.rest.request<Array<{ id: string; name: string; isArchived: boolean }>>(
		'GET',
		'/workflows',
	);
	for (const old of existing.filter((candidate) => candidate.name === workflow.name)) {
		if (!old.isArchived) await n8n.rest.request('POST', `/workflows/${old.id}/archive`, {});
		await deleteArchivedWorkflow(n8n, old.id);
	}
	const body: WorkflowJson = { ...workflow };
	delete body.id; // n8n gives the new workflow its own id
	return await n8n.rest.publishWorkflow(body);
}

/** Deletes an archived workflow; n8n unpublishes it in the background first (409 until done). */
async function deleteArchivedWorkflow(n8n: N8n, id: string): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		try {
			await n8n.rest.request('DELETE', `/workflows/${id}`);
			return;
		} catch (error) {
			if (!(error instanceof N8nRestError && error.status === 409) || attempt === 40) throw error;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
}
