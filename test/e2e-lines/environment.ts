/* eslint-disable @n8n/community-nodes/no-restricted-imports --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * The package on each n8n line firms run: the newest 1.x (1.123.81, on Node 22) and 2.40.7, side
 * by side against one sandbox. The package is installed into each n8n as users install it (not
 * linked: a linked checkout would bring its own n8n-workflow). Each n8n has the demo owner, an
 * OAuth2 credential connected through the sandbox's authorization server, whose access tokens
 * live only TOKEN_TTL_SECONDS, and a published trigger on that credential watching the main firm.
 */
import { join } from 'node:path';

import type { LoggedRequest, Sandbox } from 'compliance-records-sandbox';
import { untilFirstPoll } from '../helpers/n8n/delivery';
import {
	DEMO_OWNER,
	everyMinuteTrigger,
	type WorkflowJson,
	type WorkflowNode,
} from '../helpers/n8n/demo';
import {
	e2eSuite,
	PROJECT_ROOT,
	sandboxControlsAt,
	saveAndRun,
	signedInAt,
} from '../helpers/n8n/e2eSuite';
import { N8N_1X_VERSION, N8N_VERSION } from '../helpers/n8n/install';
import {
	freePort,
	installPackage,
	N8n,
	packPackage,
	PACKAGE_NAME,
	type ExecutionRun,
	type N8nOptions,
	type N8nRest,
} from '../helpers/n8n/instance';
import { manualTrigger } from '../helpers/n8n/demo';

/** Short enough that every poll of a trigger, and a run after a short wait, finds its token expired. */
export const TOKEN_TTL_SECONDS = 20;

export const VERSIONS = [N8N_1X_VERSION, N8N_VERSION];

export const ACTION_NODE = `${PACKAGE_NAME}.complianceRecords`;
export const TRIGGER_NODE = `${PACKAGE_NAME}.complianceRecordsTrigger`;
export const TRIGGER_NAME = 'Client created or modified';

export interface LineContext {
	version: string;
	url: string;
	options: N8nOptions;
	/** The OAuth2 credential of the tests' runs. */
	oAuth2: { id: string; name: string };
	/** The published trigger (Client Created or Modified, every minute) and its own OAuth2 credential. */
	trigger: { workflowId: string; oAuth2: { id: string; name: string } };
}

export interface LinesContext {
	sandbox: { baseUrl: string };
	lines: LineContext[];
	/** When every trigger had taken its first poll (ms since epoch): changes after it must be emitted. */
	watchingSince: number;
}

export const suite = e2eSuite<LinesContext>(
	'e2e-lines',
	async ({ artifacts, sandbox: startSandbox, stopAtEnd }) => {
		const ports = await Promise.all(VERSIONS.map(() => freePort()));
		const sandbox = await startSandbox({
			clients: 250,
			controls: true,
			accessTokenTtlSeconds: TOKEN_TTL_SECONDS,
			redirectUris: ports.map((port) => `http://localhost:${port}/rest/oauth2-credential/callback`),
		});
		const tarball = await packPackage(PROJECT_ROOT, artifacts);
		const options = await Promise.all(
			VERSIONS.map(async (version, index): Promise<N8nOptions> => {
				const dir = join(artifacts, `n8n-${version}`);
				await installPackage(dir, tarball);
				return {
					version,
					userFolder: dir,
					port: ports[index],
					brokerPort: await freePort(),
					filesDir: join(dir, 'files'),
					logFile: join(artifacts, `n8n-${version}.log`),
				};
			}),
		);
		const n8ns = options.map((option) => N8n.launch(option));
		stopAtEnd(() => Promise.all(n8ns.map((n8n) => n8n.stop())));
		await Promise.all(n8ns.map((n8n) => n8n.ready()));
		const provisioned: LineContext[] = [];
		for (const [index, n8n] of n8ns.entries())
			provisioned.push(await provision(n8n, options[index], sandbox));
		return { sandbox: { baseUrl: sandbox.baseUrl }, lines: provisioned, watchingSince: Date.now() };
	},
);

/** Owner, two OAuth2 credentials connected, trigger published and its first poll taken. */
async function provision(n8n: N8n, options: N8nOptions, sandbox: Sandbox): Promise<LineContext> {
	await n8n.rest.signInOwner(DEMO_OWNER);
	// Two credentials, so that the tests know which token a run holds: the trigger refreshes its own.
	const connected = async (name: string) => {
		const credential = await n8n.rest.createCredential(name, 'complianceRecordsOAuth2Api', {
			baseUrl: sandbox.baseUrl,
			authServerUrl: sandbox.authUrl,
			clientId: sandbox.oauthClientId,
		});
		await n8n.rest.connectOAuth2(credential.id);
		return credential;
	};
	const oAuth2 = await connected('Compliance Records (OAuth2)');
	const triggerOAuth2 = await connected('Compliance Records (OAuth2, trigger)');

	const workflowId = await publishTrigger(
		n8n.rest,
		options.version as string,
		'Trigger on OAuth2',
		everyMinuteTrigger(
			TRIGGER_NODE,
			TRIGGER_NAME,
			{ complianceRecordsOAuth2Api: triggerOAuth2 },
			{ authentication: 'oAuth2' },
		),
	);
	return {
		version: options.version as string,
		url: n8n.url,
		options,
		oAuth2,
		trigger: { workflowId, oAuth2: triggerOAuth2 },
	};
}

export const lines = suite.context;

export function line(version: string): LineContext {
	const found = lines().lines.find((candidate) => candidate.version === version);
	if (!found) throw new Error(`n8n ${version} is not part of this run`);
	return found;
}

/** The REST API of a line's n8n, signed in as the demo owner. */
export const signedIn = async (version: string): Promise<N8nRest> =>
	await signedInAt(line(version).url);

/** A new workflow as each line's REST API takes it: 1.x requires `active`, 2.x publishes instead. */
function newWorkflow(version: string, workflow: WorkflowJson): WorkflowJson {
	return version.startsWith('1.') ? { active: false, ...workflow } : workflow;
}

/** Publishes a workflow of one trigger node in a line's n8n and waits for its first poll; returns the workflow's id. */
export async function publishTrigger(
	rest: N8nRest,
	version: string,
	name: string,
	trigger: WorkflowNode,
): Promise<string> {
	const workflowId = await rest.publishWorkflow(
		newWorkflow(version, { name, nodes: [trigger], connections: {} }),
	);
	await untilFirstPoll(rest, workflowId, trigger.name, `"${name}" on n8n ${version}`);
	return workflowId;
}

/** Saves a workflow in a line's n8n and runs it with `n8n execute`. */
export const runWorkflow = async (version: string, workflow: WorkflowJson): Promise<ExecutionRun> =>
	await saveAndRun(await signedIn(version), line(version).options, newWorkflow(version, workflow));

export const { sandboxControl, sandboxRequests } = sandboxControlsAt(() => lines().sandbox.baseUrl);

export type NodeCredentials = Record<string, { id: string; name: string }>;

const actionNode = (
	name: string,
	parameters: Record<string, unknown>,
	credentials: NodeCredentials,
	x: number,
): WorkflowNode => ({
	id: name.toLowerCase(),
	name,
	type: ACTION_NODE,
	typeVersion: 1,
	position: [x, 0],
	parameters,
	credentials,
});

/**
 * Runs Run → (List →) Operation in a line's n8n: the operation with `parameters` and
 * `credentials`; List, when asked, a Get Many of `list.limit` clients whose items the operation
 * takes. Returns the run and every request the sandbox received meanwhile (the triggers poll
 * too: callers keep their own).
 */
export async function runOperation(
	version: string,
	parameters: Record<string, unknown>,
	credentials: NodeCredentials,
	list?: { limit: number; credentials: NodeCredentials },
): Promise<{ run: ExecutionRun; requests: LoggedRequest[] }> {
	const before = (await sandboxRequests()).length;
	const authentication = 'complianceRecordsOAuth2Api' in credentials ? 'oAuth2' : 'apiKey';
	const operation = actionNode('Operation', { authentication, ...parameters }, credentials, 480);
	const listNode =
		list &&
		actionNode(
			'List',
			{ resource: 'client', operation: 'getAll', limit: list.limit },
			list.credentials,
			240,
		);
	const run = await runWorkflow(version, {
		name: `Operation run ${Date.now()}`,
		nodes: [manualTrigger(), ...(listNode ? [listNode] : []), operation],
		connections: listNode
			? {
					Run: { main: [[{ node: 'List', type: 'main', index: 0 }]] },
					List: { main: [[{ node: 'Operation', type: 'main', index: 0 }]] },
				}
			: { Run: { main: [[{ node: 'Operation', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	return { run, requests: (await sandboxRequests()).slice(before) };
}
