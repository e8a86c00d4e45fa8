/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions --
   development tooling: runs in Node, not in n8n */
// A real n8n (the cached install from install.ts) run as a child process, with this package
// loaded the way `n8n-node dev` loads a package under development (or installed as users install
// it), and a small client of the REST API its editor uses. Used by `npm start` and by the
// end-to-end tests.
import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
	closeSync,
	createWriteStream,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	renameSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { isN8nInstalled, N8N_VERSION, n8nRuntime } from './install';

export const PACKAGE_NAME = 'n8n-nodes-compliance-records';

export interface N8nOptions {
	/** N8N_USER_FOLDER: n8n keeps its database, settings and custom nodes in `<userFolder>/.n8n`. */
	userFolder: string;
	/**
	 * The package to link into `<userFolder>/.n8n/custom`, as `n8n-node dev` loads a package under
	 * development (its `dist/` must be built). Absent: the package was installed into
	 * `<userFolder>/.n8n/nodes` (`installPackage`), the way users install it; its nodes are then
	 * typed `n8n-nodes-compliance-records.*` and load with n8n's own n8n-workflow, as in production.
	 */
	linkedPackage?: string;
	port: number;
	/** Port of n8n's internal task broker (n8n's default is 5679). */
	brokerPort: number;
	/** The only folder n8n's file nodes may read and write. */
	filesDir: string;
	/** Where n8n's own output goes. */
	logFile: string;
	/** The n8n version to run (installed by install.ts, run on its own Node.js); N8N_VERSION when absent. */
	version?: string;
	/** Environment variables added to n8n's (queue mode, scheduler flags such as N8N_SCHEDULER_ENABLED). */
	env?: Record<string, string>;
}

/** What an instance runs: `n8n start` (the main: editor, triggers) or `n8n worker` (queue mode). */
export type N8nCommand = 'start' | 'worker';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** What `n8n execute --rawOutput` prints: the run's data, as n8n stores it. */
export interface ExecutionRun {
	status: string;
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message: string; description?: string };
			lastNodeExecuted?: string;
		};
		/** What was still to run when the execution stopped: a node and the items it was given. */
		executionData?: {
			nodeExecutionStack: Array<{
				node: { name: string };
				data: { main: Array<Array<{ json: Record<string, unknown> }> | null> };
			}>;
		};
	};
}

export interface NodeRun {
	executionStatus?: string;
	error?: { message: string; description?: string };
	data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> };
}

/**
 * Links the package into `<userFolder>/.n8n/custom/node_modules`, as `n8n-node dev` does; n8n
 * then loads its nodes with the type prefix `CUSTOM.` (`CUSTOM.complianceRecords`).
 *
 * The link holds what the published package holds (package.json and dist/), not the whole
 * project: n8n loads every `*.node.js` file under its custom folder, and the project's
 * node_modules has some that are not n8n nodes (apache-arrow's), which stop n8n from starting.
 */
export function linkPackage(userFolder: string, packageRoot: string): void {
	const packageDir = join(userFolder, '.n8n', 'custom', 'node_modules', PACKAGE_NAME);
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(packageDir, { recursive: true });
	for (const entry of ['package.json', 'dist'])
		symlinkSync(join(packageRoot, entry), join(packageDir, entry));
}

/**
 * The published files of the package (`npm pack`) as a tarball in `destination`; returns its
 * path. The package must be built: its `prepack` build is skipped, as it would empty `dist/`
 * under any n8n that links it.
 */
export async function packPackage(packageRoot: string, destination: string): Promise<string> {
	mkdirSync(destination, { recursive: true });
	const { stdout } = await promisify(execFile)(
		'npm',
		['pack', '--silent', '--ignore-scripts', '--pack-destination', destination],
		{
			cwd: packageRoot,
		},
	);
	return join(destination, stdout.trim().split('\n').pop() as string);
}

/**
 * Installs a packed package into `<userFolder>/.n8n/nodes/node_modules`, where Settings →
 * Community Nodes and a manual `npm install` in `~/.n8n/nodes` put it. The package has no
 * runtime dependencies, so unpacking is all `npm install` would do.
 */
export async function installPackage(userFolder: string, tarball: string): Promise<void> {
	const nodeModules = join(userFolder, '.n8n', 'nodes', 'node_modules');
	rmSync(join(nodeModules, PACKAGE_NAME), { recursive: true, force: true });
	mkdirSync(nodeModules, { recursive: true });
	await promisify(execFile)('tar', ['-xzf', tarball, '-C', nodeModules]);
	renameSync(join(nodeModules, 'package'), join(nodeModules, PACKAGE_NAME));
}

/** Fails with a clear message when something already listens on the port. */
export async function assertPortFree(port: number, what: string): Promise<void> {
	if (!(await isPortFree(port))) {
		throw new Error(
			`Port ${port} (${what}) is already in use: stop the program using it (another n8n? npm start already running?), then try again.`,
		);
	}
}

function isPortFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, () => server.close(() => resolve(true)));
	});
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() =>
				typeof address === 'object' && address
					? resolve(address.port)
					: reject(new Error('no port')),
			);
		});
	});
}

export class N8n {
	readonly url: string;
	readonly rest: N8nRest;
	private exited: Promise<number | null>;

	private constructor(
		private readonly options: N8nOptions,
		private readonly child: ChildProcess,
		private readonly command: N8nCommand = 'start',
	) {
		this.url = `http://localhost:${options.port}`;
		this.rest = new N8nRest(this.url);
		// 'close', not 'exit': by then all of its output has reached the log.
		this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
	}

	/**
	 * Spawns `n8n start` (or `n8n worker`) and returns at once; `ready()` waits for it. The
	 * caller can stop() it from the start, even while it is still starting up. The package is
	 * linked when `linkedPackage` names it.
	 */
	static launch(options: N8nOptions, command: N8nCommand = 'start'): N8n {
		const version = options.version ?? N8N_VERSION;
		if (!isN8nInstalled(version)) {
			throw new Error(
				`n8n ${version} is not installed yet: run \`npm start\` or \`npm run test:e2e\`, which install it`,
			);
		}
		if (options.linkedPackage) linkPackage(options.userFolder, options.linkedPackage);
		mkdirSync(options.filesDir, { recursive: true });
		const log = createWriteStream(options.logFile, { flags: 'a' });
		const runtime = n8nRuntime(version);
		// Its own process group, so stop() ends n8n and the task runner it spawns, and nothing else.
		const child = spawn(runtime.nodeBin, [runtime.bin, command], {
			env: n8nEnv(options, options.brokerPort),
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		child.stdout?.pipe(log, { end: false });
		child.stderr?.pipe(log, { end: false });
		return new N8n(options, child, command);
	}

	/** The process id of n8n itself (the main or the worker process). */
	get pid(): number {
		return this.child.pid as number;
	}

	/**
	 * Kills n8n the hard way (SIGKILL, as a crash or `kill -9` would), then whatever of its process
	 * group is left (the task runner), and waits until it is gone.
	 */
	async kill(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		signalGroup(this.pid, 'SIGKILL');
		await this.exited;
		signalGroup(-this.pid, 'SIGKILL');
	}

	/**
	 * Resolves once n8n is ready: a main once its REST API answers (its database migrated and
	 * every node loaded); a worker once its readiness check passes (needs QUEUE_HEALTH_CHECK_ACTIVE
	 * and QUEUE_HEALTH_CHECK_PORT in `env`).
	 */
	async ready(timeoutMs = 120_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		let exitCode: number | null | undefined;
		void this.exited.then((code) => (exitCode = code));
		const failure = (reason: string) =>
			new Error(`${reason}; see n8n's output in ${this.options.logFile}`);
		while (Date.now() < deadline) {
			if (exitCode !== undefined)
				throw failure(`n8n exited during start-up (exit code ${exitCode})`);
			if (await this.answers()) return;
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
		throw failure(`n8n did not become ready within ${timeoutMs / 1000} s`);
	}

	private async answers(): Promise<boolean> {
		if (this.command === 'worker') {
			const port = this.options.env?.QUEUE_HEALTH_CHECK_PORT;
			if (!port)
				throw new Error(
					'A worker is ready when its health check says so: set QUEUE_HEALTH_CHECK_ACTIVE and QUEUE_HEALTH_CHECK_PORT',
				);
			const response = await fetch(`http://127.0.0.1:${port}/healthz/readiness`).catch(
				() => undefined,
			);
			return response?.ok === true;
		}
		// Until n8n has migrated its database and loaded every node, it answers every path
		// with a "starting up" page; then its REST API answers JSON.
		const response = await fetch(`${this.url}/rest/settings`).catch(() => undefined);
		return response?.ok === true && response.headers.get('content-type')?.includes('json') === true;
	}

	/** Resolves when n8n exits by itself (a crash, or a signal sent by someone else). */
	onExit(): Promise<number | null> {
		return this.exited;
	}

	/** Stops n8n and its task runner: SIGTERM to its process group, SIGKILL after 20 s. */
	async stop(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		const group = -(this.child.pid as number);
		signalGroup(group, 'SIGTERM');
		const killed = setTimeout(() => signalGroup(group, 'SIGKILL'), 20_000);
		await this.exited;
		clearTimeout(killed);
		signalGroup(group, 'SIGKILL'); // anything of the group still running, such as the task runner
	}
}

/**
 * Runs an n8n command (`import:workflow`, `execute`, ...) on the user folder, as a separate
 * process that may run next to a started n8n (same database; its own task broker port).
 */
export async function n8nCommand(
	options: N8nOptions,
	args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const runtime = n8nRuntime(options.version);
	// stdout goes to a file: n8n exits right after printing a run, and what a busy reader had not
	// yet taken from a pipe is lost (a long run cut short, seen on two cores).
	const folder = mkdtempSync(join(tmpdir(), 'n8n-command-'));
	const stdoutFile = join(folder, 'stdout');
	const stdoutFd = openSync(stdoutFile, 'w');
	try {
		const child = spawn(runtime.nodeBin, [runtime.bin, ...args], {
			env: n8nEnv(options, await freePort()),
			stdio: ['ignore', stdoutFd, 'pipe'],
		});
		let stderr = '';
		child.stderr?.on('data', (chunk) => (stderr += chunk));
		const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
		return { code, stdout: readFileSync(stdoutFile, 'utf8'), stderr };
	} finally {
		closeSync(stdoutFd);
		rmSync(folder, { recursive: true, force: true });
	}
}

/**
 * Runs a saved workflow with `n8n execute`. Resolves with the run's data even when a node
 * failed; rejects when n8n printed no run at all.
 */
export async function executeWorkflow(
	options: N8nOptions,
	workflowId: string,
): Promise<ExecutionRun> {
	const { code, stdout, stderr } = await n8nCommand(options, [
		'execute',
		`--id=${workflowId}`,
		'--rawOutput',
	]);
	// --rawOutput prints the run as pretty JSON after n8n's start-up lines (1.x prints more after
	// a failed run): from a line "{" to the next line "}".
	const json = /^\{$[\s\S]*?^\}$/m.exec(stdout);
	if (!json) {
		throw new Error(
			`n8n execute --id=${workflowId} printed no run (exit code ${code}):\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
		);
	}
	return JSON.parse(json[0]) as ExecutionRun;
}

function n8nEnv(options: N8nOptions, brokerPort: number): NodeJS.ProcessEnv {
	// Not jest's NODE_ENV=test: n8n then behaves as in its own unit tests and refuses to start. Nor
	// the engine tests' silent log level (helpers/engine.ts): `n8n execute` prints its run through it.
	const environment = { ...process.env };
	delete environment.NODE_ENV;
	delete environment.N8N_LOG_LEVEL;
	return {
		...environment,
		N8N_USER_FOLDER: options.userFolder,
		N8N_PORT: String(options.port),
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RESTRICT_FILE_ACCESS_TO: options.filesDir,
		// No telemetry, no calls home, no survey: this n8n runs offline on a developer's machine.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		...options.env,
	};
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
	try {
		process.kill(group, signal);
	} catch {
		// the group is already gone
	}
}

export class N8nRestError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

/** The REST API n8n's editor uses (`/rest/...`), signed in with the editor's session cookie. */
export class N8nRest {
	private cookie = '';
	// n8n binds a session to the browser that signed in; this client is one "browser".
	private readonly browserId = randomUUID();

	constructor(readonly baseUrl: string) {}

	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.baseUrl}/rest${path}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = response.headers
			.getSetCookie()
			.find((value) => value.startsWith('n8n-auth='));
		if (setCookie) this.cookie = setCookie.split(';')[0];
		const text = await response.text();
		const json = response.headers.get('content-type')?.includes('json')
			? (JSON.parse(text) as { data?: T; message?: string })
			: undefined;
		if (!response.ok) {
			throw new N8nRestError(
				response.status,
				`${method} /rest${path}: ${response.status} ${json?.message ?? text}`,
			);
		}
		return json?.data as T;
	}

	/**
	 * "Connect my account" on an OAuth2 credential, as the editor runs it minus the browser: n8n
	 * makes the authorization URL, the authorization server (the sandbox approves at once)
	 * redirects to n8n's callback, and n8n exchanges the code for tokens and stores them.
	 */
	async connectOAuth2(credentialId: string): Promise<void> {
		const authorizeUrl = await this.request<string>(
			'GET',
			`/oauth2-credential/auth?id=${encodeURIComponent(credentialId)}`,
		);
		const approval = await fetch(authorizeUrl, { redirect: 'manual' });
		const callback = approval.headers.get('location');
		if (!callback?.startsWith(`${this.baseUrl}/rest/oauth2-credential/callback`)) {
			throw new Error(
				`The authorization server did not send back to n8n's callback (HTTP ${approval.status}): ${callback ?? (await approval.text())}`,
			);
		}
		const answer = await fetch(callback, {
			headers: { cookie: this.cookie, 'browser-id': this.browserId },
			redirect: 'manual',
		});
		const page = await answer.text();
		// n8n answers 200 either way; its error page says "Failed to connect".
		if (!answer.ok || page.includes('Failed to connect')) {
			throw new Error(
				`n8n's OAuth2 callback failed (HTTP ${answer.status}): ${page.slice(0, 2000)}`,
			);
		}
	}

	/** Saves a credential; returns the reference a node's `credentials` takes. */
	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string; name: string }> {
		const { id } = await this.request<{ id: string }>('POST', '/credentials', { name, type, data });
		return { id, name };
	}

	/** Creates a workflow and publishes it (its triggers start); returns its id. */
	async publishWorkflow(workflow: Record<string, unknown>): Promise<string> {
		const created = await this.request<{ id: string; versionId: string }>('POST', '/workflows', {
			settings: { executionOrder: 'v1' },
			connections: {},
			...workflow,
		});
		await this.request('POST', `/workflows/${created.id}/activate`, {
			versionId: created.versionId,
		});
		return created.id;
	}

	/** Unpublishes a workflow: its triggers stop. */
	async unpublishWorkflow(workflowId: string): Promise<void> {
		await this.request('POST', `/workflows/${workflowId}/deactivate`, {});
	}

	/** Creates the instance owner on a fresh n8n, then signs in as the owner. */
	async signInOwner(owner: Owner): Promise<void> {
		const settings = await this.request<{ userManagement: { showSetupOnFirstLoad?: boolean } }>(
			'GET',
			'/settings',
		);
		if (settings.userManagement.showSetupOnFirstLoad) {
			await this.request('POST', '/owner/setup', owner);
		}
		await this.request('POST', '/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
	}
}

/** The items a node output in a run (its first output, first run). */
export function nodeOutput(run: ExecutionRun, nodeName: string): Array<Record<string, unknown>> {
	const nodeRun = run.data.resultData.runData[nodeName]?.[0];
	if (!nodeRun) throw new Error(`Node "${nodeName}" did not run`);
	if (nodeRun.error) throw new Error(`Node "${nodeName}" failed: ${nodeRun.error.message}`);
	return (nodeRun.data?.main[0] ?? []).map((item) => item.json);
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	startedAt: string;
}

/** Every status an execution can have: asking for all of them pages by id, newest first. */
const EXECUTION_STATUSES = [
	'canceled',
	'crashed',
	'error',
	'new',
	'running',
	'success',
	'unknown',
	'waiting',
];

/** The executions of a workflow, newest first (n8n sends at most 100 at a time). */
export async function executionsOf(rest: N8nRest, workflowId: string): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: EXECUTION_STATUSES }));
	const executions: ExecutionSummary[] = [];
	for (;;) {
		const lastId = executions.at(-1)?.id;
		const page = await rest.request<{ results: ExecutionSummary[] }>(
			'GET',
			`/executions?filter=${filter}&limit=100${lastId ? `&lastId=${lastId}` : ''}`,
		);
		executions.push(...page.results);
		if (page.results.length < 100) return executions;
	}
}

/** One execution's run data. n8n's REST API sends it in the `flatted` format of its editor. */
export async function executionRun(rest: N8nRest, executionId: string): Promise<ExecutionRun> {
	const execution = await rest.request<{ status: string; data: string }>(
		'GET',
		`/executions/${executionId}`,
	);
	return { status: execution.status, data: parseFlatted(execution.data) as ExecutionRun['data'] };
}

/**
 * `flatted` (what n8n stores run data in) writes a JSON array: the value at index 0 is the root,
 * and every string inside an object or array is the index of the entry holding its value.
 */
function parseFlatted(text: string): unknown {
	const table = JSON.parse(text) as unknown[];
	const revived = new Map<number, unknown>();
	const revive = (index: number): unknown => {
		if (revived.has(index)) return revived.get(index);
		const entry = table[index];
		if (typeof entry !== 'object' || entry === null) return entry;
		const copy: Record<string, unknown> | unknown[] = Array.isArray(entry) ? [] : {};
		revived.set(index, copy);
		for (const [key, value] of Object.entries(entry)) {
			(copy as Record<string, unknown>)[key] =
				typeof value === 'string' ? revive(Number(value)) : value;
		}
		return copy;
	};
	return revive(0);
}

/** Polls `check` until it returns a value other than undefined; fails after the timeout. */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined>,
	{ timeoutMs, intervalMs = 1000 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
