/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
/**
 * The end-to-end environment every suite (test/e2e, test/e2e-lines, test/e2e-queue) shares: jest's
 * global setup empties the suite's artifacts folder and starts what the suite needs (a sandbox,
 * n8n instances), stopping all of it again if any part fails; the context it publishes reaches
 * every test file through the environment; global teardown stops it all. Tests reach it over HTTP.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

import {
	startSandbox,
	type LoggedRequest,
	type Sandbox,
	type SandboxOptions,
} from 'compliance-records-sandbox';
import { sandboxControlAt } from '../sandboxControl';
import { DEMO_OWNER, type WorkflowJson } from './demo';
import { executeWorkflow, N8nRest, type ExecutionRun, type N8nOptions } from './instance';

export const PROJECT_ROOT = resolve(__dirname, '..', '..', '..');

/** Where a suite leaves what its n8n instances wrote, logs and screenshots: `test-artifacts/<suite>`. */
export const artifactsOf = (suite: string) => join(PROJECT_ROOT, 'test-artifacts', suite);

/** What a suite's start function uses: its artifacts folder, and what to stop at the end. */
export interface SuiteStart {
	/** `test-artifacts/<suite>`, emptied. */
	artifacts: string;
	/** Starts a sandbox of the service, stopped with the suite. */
	sandbox(options: SandboxOptions): Promise<Sandbox>;
	/** Something started that the suite's end must stop (in the reverse order of starting). */
	stopAtEnd(stop: () => Promise<unknown>): void;
}

export interface E2eSuite<Context> {
	/** Jest's global setup of the suite. */
	start(): Promise<void>;
	/** Jest's global teardown of the suite. */
	stop(): Promise<void>;
	/** What the suite's start published, as a test file reads it. */
	context(): Context;
}

/** A suite named by its folder (and jest project), its start function giving the context its tests read. */
export function e2eSuite<Context>(
	name: string,
	start: (suite: SuiteStart) => Promise<Context>,
): E2eSuite<Context> {
	const variable = `COMPLIANCE_RECORDS_${name.toUpperCase().replace(/-/g, '_')}`;
	let stops: Array<() => Promise<unknown>> = [];
	const stop = async () => {
		for (const stopOne of stops.reverse()) await stopOne();
		stops = [];
	};
	return {
		async start() {
			const artifacts = artifactsOf(name);
			rmSync(artifacts, { recursive: true, force: true });
			mkdirSync(artifacts, { recursive: true });
			const stopAtEnd = (stopOne: () => Promise<unknown>) => void stops.push(stopOne);
			const sandbox = async (options: SandboxOptions) => {
				const started = await startSandbox(options);
				stopAtEnd(() => started.close());
				return started;
			};
			try {
				process.env[variable] = JSON.stringify(await start({ artifacts, sandbox, stopAtEnd }));
			} catch (error) {
				await stop();
				throw error;
			}
		},
		stop,
		context() {
			const json = process.env[variable];
			if (!json)
				throw new Error(
					`The ${name} environment is not running: run the suite with \`npm run test:e2e\``,
				);
			return JSON.parse(json) as Context;
		},
	};
}

/** The REST API of an n8n of the suite, signed in as the demo owner. */
export async function signedInAt(url: string): Promise<N8nRest> {
	const rest = new N8nRest(url);
	await rest.signInOwner(DEMO_OWNER);
	return rest;
}

/** Saves a workflow through `rest` and runs it with `n8n execute` in the n8n `options` start. */
export async function saveAndRun(
	rest: N8nRest,
	options: N8nOptions,
	workflow: WorkflowJson,
): Promise<ExecutionRun> {
	const saved = await rest.request<{ id: string }>('POST', '/workflows', workflow);
	return await executeWorkflow(options, saved.id);
}

/** The test controls of a suite's sandbox (it runs in jest's parent process), and its request log. */
export function sandboxControlsAt(baseUrl: () => string) {
	const sandboxControl = <T = unknown>(method: string, route: string, body?: unknown) =>
		sandboxControlAt<T>(new URL(baseUrl()).origin, method, route, body);
	const sandboxRequests = () => sandboxControl<LoggedRequest[]>('GET', '/requests');
	return { sandboxControl, sandboxRequests };
}
