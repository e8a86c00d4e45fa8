/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
// Crash recovery of the Compliance Records Trigger, measured: the process running the poller is
// killed with SIGKILL (as `kill -9`, an OOM kill or a host crash would) at a chosen moment, then
// started again; every change the service made while the trigger watched is then looked for in
// the trigger's finished executions, and counted as delivered, lost or repeated.
//
//   npm run crash-recovery                        every case below; prints a table
//   npm run crash-recovery -- --mode queue --moment emitted --scheduler durable
//
// Cases: mode `single` (one n8n, SQLite) or `queue` (PostgreSQL, Redis, a main and a worker; the
// main runs the poller and is the one killed); moment `backlog` (while a poll pages through a
// backlog of changes: killed on its third page) or `emitted` (right after a poll emitted, while
// the execution it started is still running: killed when that execution's next node calls the
// service), or `none` (the backlog, not killed: a control, run only when asked for); scheduler
// `memory` (n8n's in-memory poller, the default) or `durable` (n8n 2.x's
// durable scheduler with durable poll cursors). The n8n version is N8N_VERSION; the package is
// installed as users install it. Everything runs on free loopback ports and is stopped at the end.
//
// A proxy in front of the sandbox sees every request the trigger and its workflow send: that is
// how the kill is timed, and how a page is held long enough to be killed during. Exits 1 when a
// change was lost for good: not delivered even after retrying the executions n8n marked crashed
// (which hold the changes they were given), or repeated after that retry.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { startSandbox, type Sandbox } from 'compliance-records-sandbox';
import { DEMO_OWNER, everyMinuteTrigger } from '../test/helpers/n8n/demo';
import { countDelivery, type Change, type Emission } from '../test/helpers/n8n/delivery';
import { clientIds } from '../test/helpers/serviceApi';
import { forwardingProxy } from '../test/helpers/forwardingProxy';
import { ensureN8n, formatDuration } from '../test/helpers/n8n/install';
import {
	executionRun,
	executionsOf,
	freePort,
	installPackage,
	N8n,
	packPackage,
	PACKAGE_NAME,
	waitFor,
	type ExecutionRun,
	type N8nOptions,
	type N8nRest,
} from '../test/helpers/n8n/instance';
import { QueueMode } from '../test/helpers/n8n/queueMode';

const PROJECT_ROOT = resolve(__dirname, '..');
const ARTIFACTS_DIR = join(PROJECT_ROOT, 'test-artifacts', 'crash-recovery');

type Mode = 'single' | 'queue';
type Moment = 'backlog' | 'emitted' | 'none';
type Scheduler = 'memory' | 'durable';

interface Case {
	mode: Mode;
	moment: Moment;
	scheduler: Scheduler;
}

/** n8n 2.x's durable scheduler for poll triggers, with the cursor committed with the execution. */
const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};

/** Changes in the backlog: pages of 200, so a poll pages eight times. */
const BACKLOG = 1500;
/** Changes before the "emitted" kill. */
const BURST = 20;
const TRIGGER_NAME = 'Client created or modified';
const NEXT_NODE = 'Firm';
const POLL_WAIT_MS = 90_000;

const log = (message: string) => process.stderr.write(`[crash-recovery] ${message}\n`);

interface Result extends Case {
	changes: number;
	delivered: number;
	lost: number;
	repeated: number;
	/** Executions that did not finish (n8n marks the one killed `crashed`). */
	crashed: number;
	/** Lost changes that a crashed execution holds (n8n keeps the items the trigger gave it). */
	lostInCrashed: number;
	/** After retrying every crashed execution (n8n's Retry in the executions list). */
	lostAfterRetry: number;
	repeatedAfterRetry: number;
	seconds: number;
	note: string;
}

// ---- the proxy --------------------------------------------------------------------------------

type Hook = (request: { method: string; path: string; cursor: boolean }) => Promise<void> | void;

/** Forwards to the sandbox; `hook` runs (and may wait) before each request is forwarded. */
async function interceptingProxy(sandbox: Sandbox) {
	let hook: Hook = () => undefined;
	const proxy = await forwardingProxy(sandbox.baseUrl, {
		before: async ({ method, url }) => {
			await hook({ method, path: url.pathname, cursor: url.searchParams.has('cursor') });
		},
	});
	return {
		baseUrl: proxy.origin,
		setHook(next: Hook) {
			hook = next;
		},
		close: proxy.close,
	};
}

// ---- n8n, single or queue ---------------------------------------------------------------------

/** The n8n of one case: the process running the poller can be killed and started again. */
interface Runtime {
	poller(): N8n;
	restartPoller(): Promise<void>;
	stop(): Promise<void>;
}

async function startRuntime(kase: Case, dir: string, tarball: string): Promise<Runtime> {
	const env = {
		N8N_LOG_LEVEL: 'debug',
		...(kase.scheduler === 'durable' ? DURABLE_SCHEDULER : {}),
	};
	if (kase.mode === 'queue') {
		const queue = await new QueueMode({ dir, tarball, env }).start();
		return {
			poller: () => queue.main as N8n,
			restartPoller: async () => void (await queue.startMain()),
			stop: () => queue.stop(),
		};
	}
	const options: N8nOptions = {
		userFolder: join(dir, 'n8n'),
		port: await freePort(),
		brokerPort: await freePort(),
		filesDir: join(dir, 'files'),
		logFile: join(dir, 'n8n.log'),
		env,
	};
	await installPackage(options.userFolder, tarball);
	let n8n = N8n.launch(options);
	const runtime: Runtime = {
		poller: () => n8n,
		restartPoller: async () => {
			n8n = N8n.launch(options);
			await n8n.ready();
		},
		stop: () => n8n.stop(),
	};
	try {
		await n8n.ready();
	} catch (error) {
		await runtime.stop();
		throw error;
	}
	return runtime;
}

/** Owner, API key credential (through the proxy), the trigger → Firm workflow published. */
async function provision(n8n: N8n, baseUrl: string, apiKey: string): Promise<string> {
	const rest = n8n.rest;
	await rest.signInOwner(DEMO_OWNER);
	const credentials = {
		complianceRecordsApi: await rest.createCredential(
			'Compliance Records (API key)',
			'complianceRecordsApi',
			{ baseUrl, apiKey },
		),
	};
	return await rest.publishWorkflow({
		name: 'Trigger',
		nodes: [
			everyMinuteTrigger(`${PACKAGE_NAME}.complianceRecordsTrigger`, TRIGGER_NAME, credentials),
			{
				id: 'd4f0c3d2-0000-4000-8000-000000000002',
				name: NEXT_NODE,
				type: `${PACKAGE_NAME}.complianceRecords`,
				typeVersion: 1,
				position: [240, 0],
				parameters: { resource: 'firm', operation: 'get' },
				credentials,
				// Once per execution, whatever the number of clients emitted.
				executeOnce: true,
			},
		],
		connections: { [TRIGGER_NAME]: { main: [[{ node: NEXT_NODE, type: 'main', index: 0 }]] } },
	});
}

/**
 * The clients a trigger execution carries: the trigger's output in its runs; for an execution
 * that stopped before the trigger's output was saved (n8n then records a placeholder item), the
 * items still waiting for the trigger node, which a retry would run.
 */
function triggerItems(run: ExecutionRun): Array<Record<string, unknown>> {
	const output = (run.data.resultData.runData[TRIGGER_NAME] ?? [])
		.flatMap((nodeRun) => nodeRun.data?.main[0] ?? [])
		.map((item) => item.json)
		.filter((json) => !json.isArtificialRecoveredEventItem);
	if (output.length > 0) return output;
	const waiting = run.data.executionData?.nodeExecutionStack.find(
		(entry) => entry.node.name === TRIGGER_NAME,
	);
	return (waiting?.data.main[0] ?? []).map((item) => item.json);
}

/**
 * What the trigger delivered: the clients of each execution that succeeded. Those of executions
 * that did not (the one running when the process was killed) are kept apart.
 */
async function deliveredSoFar(
	rest: N8nRest,
	workflowId: string,
): Promise<{ emissions: Emission[]; inCrashed: Emission[]; crashedIds: string[] }> {
	const emissions: Emission[] = [];
	const inCrashed: Emission[] = [];
	const crashedIds: string[] = [];
	for (const execution of await executionsOf(rest, workflowId)) {
		const finished = execution.status === 'success';
		if (!finished && execution.status !== 'crashed' && execution.status !== 'error') continue; // still running
		if (!finished) crashedIds.push(execution.id);
		for (const json of triggerItems(await executionRun(rest, execution.id))) {
			(finished ? emissions : inCrashed).push({
				clientId: String(json.id),
				lastModifiedAt: String(json.lastModifiedAt),
				executionId: execution.id,
			});
		}
	}
	return { emissions, inCrashed, crashedIds };
}

// ---- one case ---------------------------------------------------------------------------------

async function runCase(kase: Case, tarball: string): Promise<Result> {
	const startedAt = Date.now();
	const name = `${kase.mode}-${kase.moment}-${kase.scheduler}`;
	const dir = join(ARTIFACTS_DIR, name);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	log(`${name}: starting (logs in ${dir})`);
	const sandbox = await startSandbox({ clients: BACKLOG + 100 });
	const proxy = await interceptingProxy(sandbox);
	let runtime: Runtime | undefined;
	try {
		// The trigger's first listing (its activation poll), and every later one, pass the proxy.
		let listings = 0;
		let listingDone = 0;
		proxy.setHook(({ method, path, cursor }) => {
			if (method === 'GET' && path === '/clients' && !cursor) listings++;
		});
		runtime = await startRuntime(kase, dir, tarball);
		const workflowId = await provision(runtime.poller(), proxy.baseUrl, sandbox.apiKey);
		await waitFor('the first poll', async () => listings > 0 || undefined, {
			timeoutMs: POLL_WAIT_MS,
			intervalMs: 500,
		});
		await new Promise((done) => setTimeout(done, 3000)); // let it finish and save its starting point
		listingDone = listings;
		const watchingSince = Date.now();

		// Changes made by the service's own workflow (completed AML determinations): to the trigger,
		// changes like any other. The clients are read from the service directly, not through the proxy.
		const ids = (await clientIds(sandbox)).slice(0, kase.moment === 'emitted' ? BURST : BACKLOG);
		for (const id of ids) sandbox.completeAmlDetermination(id, 'LOW');

		let killed: Promise<void> | undefined;
		const kill = (why: string) => {
			if (killed) return;
			log(`${name}: kill -9 of process ${runtime?.poller().pid} (${why})`);
			killed = (runtime as Runtime).poller().kill();
		};
		let pages = 0;
		proxy.setHook(async ({ method, path, cursor }) => {
			if (
				kase.moment !== 'emitted' &&
				method === 'GET' &&
				path === '/clients' &&
				cursor &&
				listings > listingDone
			) {
				pages++;
				if (pages === 2 && kase.moment === 'backlog') kill('a poll is on page 3 of the backlog');
				await new Promise((done) => setTimeout(done, 1000)); // a slow page: the poll is mid-way
			}
			if (method === 'GET' && path === '/clients' && !cursor) listings++;
			if (kase.moment === 'emitted' && method === 'GET' && path === '/firm') {
				kill("the poll emitted; its execution's next node is calling the service");
				await new Promise((done) => setTimeout(done, 5000)); // the execution is still running
			}
		});
		let note = '';
		if (kase.moment !== 'none') {
			await waitFor('the moment to kill', async () => (killed ? true : undefined), {
				timeoutMs: POLL_WAIT_MS * 2,
				intervalMs: 200,
			}).catch(() => {
				note = 'the moment to kill never came (no poll paged or emitted): not killed; ';
				log(`${name}: ${note}`);
			});
		}
		proxy.setHook(() => undefined);
		if (killed) {
			await killed;
			log(`${name}: starting the poller's process again`);
			await runtime.restartPoller();
		}

		const rest = runtime.poller().rest;
		await rest.signInOwner(DEMO_OWNER);
		const changes = (): Change[] =>
			sandbox.changes().filter((change) => Date.parse(change.lastModifiedAt) >= watchingSince);
		await waitFor(
			'every change to be delivered',
			async () =>
				countDelivery(changes(), (await deliveredSoFar(rest, workflowId)).emissions).lost.length ===
					0 || undefined,
			{ timeoutMs: POLL_WAIT_MS * 2, intervalMs: 5000 },
		).catch((error: Error) => log(`${name}: ${error.message}`));
		await new Promise((done) => setTimeout(done, 65_000)); // one more poll after that

		const { emissions, inCrashed, crashedIds } = await deliveredSoFar(rest, workflowId);
		const delivery = countDelivery(changes(), emissions);
		const stillLost = countDelivery(delivery.lost, inCrashed).lost.length;
		const deliveredStates = new Set(
			emissions.map((emission) => `${emission.clientId}@${emission.lastModifiedAt}`),
		);
		// What a user can do about a crashed execution: Retry it in n8n's list of executions.
		for (const id of crashedIds) {
			await rest
				.request('POST', `/executions/${id}/retry`, { loadWorkflow: false })
				.catch((error: Error) => log(`${name}: retry of ${id}: ${error.message}`));
		}
		const afterRetry = crashedIds.length
			? countDelivery(changes(), (await deliveredSoFar(rest, workflowId)).emissions)
			: delivery;
		return {
			...kase,
			changes: delivery.changes,
			delivered: delivery.changes - delivery.lost.length,
			lost: delivery.lost.length,
			repeated: delivery.repeated.length,
			crashed: crashedIds.length,
			lostInCrashed: delivery.lost.length - stillLost,
			lostAfterRetry: afterRetry.lost.length,
			repeatedAfterRetry: afterRetry.repeated.length,
			seconds: Math.round((Date.now() - startedAt) / 1000),
			note: `${note}${deliveredStates.size} states emitted in ${new Set(emissions.map((emission) => emission.executionId)).size} executions`,
		};
	} finally {
		await runtime?.stop();
		await proxy.close();
		await sandbox.close();
	}
}

// ---- main -------------------------------------------------------------------------------------

function argument(name: string): string | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index === -1 ? undefined : process.argv[index + 1];
}

async function main() {
	const pick = <T extends string>(name: string, defaults: T[], allowed: T[] = defaults): T[] => {
		const chosen = argument(name);
		if (chosen === undefined) return defaults;
		if (!allowed.includes(chosen as T))
			throw new Error(`--${name} must be one of ${allowed.join(', ')}`);
		return [chosen as T];
	};
	const cases: Case[] = [];
	for (const mode of pick<Mode>('mode', ['single', 'queue'])) {
		for (const scheduler of pick<Scheduler>('scheduler', ['memory', 'durable'])) {
			for (const moment of pick<Moment>(
				'moment',
				['backlog', 'emitted'],
				['backlog', 'emitted', 'none'],
			))
				cases.push({ mode, moment, scheduler });
		}
	}
	await ensureN8n();
	mkdirSync(ARTIFACTS_DIR, { recursive: true });
	const tarball = await packPackage(PROJECT_ROOT, ARTIFACTS_DIR);
	const results: Result[] = [];
	const startedAt = Date.now();
	const failed: string[] = [];
	for (const kase of cases) {
		try {
			results.push(await runCase(kase, tarball));
			log(`done: ${JSON.stringify(results.at(-1))}`);
		} catch (error) {
			failed.push(`${kase.mode}-${kase.moment}-${kase.scheduler}: ${(error as Error).message}`);
			log(`failed: ${failed.at(-1)}`);
		}
	}
	const rows = [
		[
			'mode',
			'scheduler',
			'killed',
			'changes',
			'delivered',
			'lost',
			'repeated',
			'crashed executions',
			'lost changes held by them',
			'after retrying them: lost',
			'repeated',
			'seconds',
			'note',
		],
		...results.map((result) => [
			result.mode,
			result.scheduler,
			{
				backlog: 'paging a backlog',
				emitted: 'after emit, execution running',
				none: 'not killed (control)',
			}[result.moment],
			result.changes,
			result.delivered,
			result.lost,
			result.repeated,
			result.crashed,
			result.lostInCrashed,
			result.lostAfterRetry,
			result.repeatedAfterRetry,
			result.seconds,
			result.note,
		]),
	];
	process.stdout.write(`${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}\n`);
	log(`all cases in ${formatDuration(Date.now() - startedAt)}`);
	for (const failure of failed) process.stdout.write(`Could not run ${failure}\n`);
	const lostOrRepeated = results.some(
		(result) => result.lostAfterRetry > 0 || result.repeatedAfterRetry > 0,
	);
	if (failed.length > 0 || lostOrRepeated) process.exitCode = 1;
}

main().catch((error) => {
	log(error.stack ?? String(error));
	process.exit(1);
});
