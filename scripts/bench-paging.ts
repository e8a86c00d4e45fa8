/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Get Many > Return All through n8n's engine, against a bare `fetch` loop over the same pages.
 *
 * Four loops read every client of a firm, pages of 200, the cursor passed back as received,
 * stopping at an empty page or one without a next_cursor:
 * - engine: the Compliance Records node's Get Many > Return All in n8n-core's engine
 *   (WorkflowExecute, RoutingNode; test/helpers runNode), every record one output item, at
 *   version 1, whose items are the records as the service sends them, as `fetch` reads them;
 * - engine, Simplify: the same at version 1.1, Simplify on (its default): flat records;
 * - n8n helper: n8n's own request helper (what httpRequestWithAuthentication ends in) with
 *   the options and headers the node's requests carry, and nothing of the node or the engine
 *   around it: the part of the difference that is n8n's HTTP client, which no node can change;
 * - fetch: Node's `fetch` with the same headers.
 *
 * The sandbox runs in a process of its own, as the service is remote to a real n8n: its work
 * and its garbage collection cannot land in one loop's time and not another's, and it answers
 * every loop the same pages. Each run times the four loops one after the other, in this
 * process, in an order that rotates from run to run; a warm-up of each comes first. Per loop:
 * the median and best wall-clock time, the median of its time over the same run's `fetch`
 * time, this process's CPU time (the sandbox's excluded), and the heap its result holds after a
 * full GC (the output items, or the records).
 *
 * Run: npm run bench:paging [-- --clients 2000,20000 --runs 25]. CONTRIBUTING.md quotes it.
 */
import { OutboundHttp } from '@n8n/backend-network';
import { Container } from '@n8n/di';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { CredentialStore, runNode } from '../test/helpers';

const { values } = parseArgs({
	options: {
		clients: { type: 'string', default: '2000,20000' },
		runs: { type: 'string', default: '25' },
	},
});
const firmSizes = values.clients.split(',').map(Number);
const runs = Number(values.runs);

interface Service {
	process: ChildProcess;
	baseUrl: string;
	apiKey: string;
}

/** The sandbox's CLI with `clients` clients and its test controls on, on free ports. */
async function startService(clients: number): Promise<Service> {
	const cli = require.resolve('compliance-records-sandbox/bin/compliance-records-sandbox.cjs');
	const child = spawn(
		process.execPath,
		[cli, '--port', '0', '--auth-port', '0', '--clients', String(clients), '--controls', '--quiet'],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
	while (!output.includes('Press Ctrl-C to stop.')) {
		if (child.exitCode !== null) throw new Error(`The sandbox exited:\n${output}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	const field = (label: string) => new RegExp(`${label} +(\\S+)`).exec(output)?.[1] as string;
	return { process: child, baseUrl: field('API base URL'), apiKey: field('API key') };
}

async function stopService(service: Service): Promise<void> {
	if (service.process.exitCode !== null) return;
	const exited = new Promise((resolve) => service.process.once('exit', resolve));
	service.process.kill('SIGINT');
	await exited;
}

/** How many API requests the sandbox received since the last call (its request log, emptied). */
async function requestsReceived(service: Service): Promise<number> {
	const controls = `${new URL(service.baseUrl).origin}/__sandbox/requests`;
	const { data } = (await (await fetch(controls)).json()) as { data: unknown[] };
	await fetch(controls, { method: 'DELETE' });
	return data.length;
}

interface ClientListItem {
	id: string;
}

interface ListPage {
	data: ClientListItem[];
	meta: { next_cursor?: string };
}

/** What a loop read (to check it) and what it holds on to (to weigh it). */
interface LoopResult {
	records: ClientListItem[];
	held: unknown;
}

const nextCursor = (page: ListPage) =>
	page.data.length > 0 && page.meta.next_cursor ? page.meta.next_cursor : undefined;

const serviceHeaders = (service: Service) => ({
	authorization: `Bearer ${service.apiKey}`,
	'accept-version': '1.0.0',
	accept: 'application/json',
});

/** The reference: `fetch`, page by page, exactly as the node's paging loop asks. */
async function fetchLoop(service: Service): Promise<LoopResult> {
	const headers = serviceHeaders(service);
	const records: ClientListItem[] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({ limit: '200', ...(cursor !== undefined && { cursor }) });
		const response = await fetch(`${service.baseUrl}/clients?${query}`, { headers });
		if (!response.ok) throw new Error(`GET /clients answered ${response.status}`);
		const page = (await response.json()) as ListPage;
		records.push(...page.data);
		cursor = nextCursor(page);
	} while (cursor !== undefined);
	return { records, held: records };
}

/** The same pages through n8n's request helper, with the options the node's requests carry. */
async function n8nHelperLoop(service: Service): Promise<LoopResult> {
	const http = Container.get(OutboundHttp).requests();
	const execution = new AbortController(); // n8n passes every request its execution's cancel signal
	const records: ClientListItem[] = [];
	let cursor: string | undefined;
	do {
		const response = (await http.request({
			method: 'GET',
			baseURL: service.baseUrl,
			url: '/clients',
			qs: { limit: 200, ...(cursor !== undefined && { cursor }) },
			headers: serviceHeaders(service),
			json: true,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			timeout: 300_000,
			abortSignal: execution.signal,
		})) as { statusCode: number; body: ListPage };
		if (response.statusCode !== 200) throw new Error(`GET /clients answered ${response.statusCode}`);
		records.push(...response.body.data);
		cursor = nextCursor(response.body);
	} while (cursor !== undefined);
	return { records, held: records };
}

/** The node's Get Many > Return All in n8n's engine: the items it outputs. */
async function engineRun(service: Service, typeVersion: number): Promise<LoopResult> {
	const credentials = new CredentialStore({
		complianceRecordsApi: { baseUrl: service.baseUrl, apiKey: service.apiKey },
	});
	const run = await runNode({
		credentials,
		typeVersion,
		parameters: { resource: 'client', operation: 'getAll', returnAll: true },
	});
	if (run.error) throw run.error;
	return { records: run.json as unknown as ClientListItem[], held: run.items };
}

const loops = [
	{ name: 'engine', run: (service: Service) => engineRun(service, 1) },
	{ name: 'engine, Simplify', run: (service: Service) => engineRun(service, 1.1) },
	{ name: 'n8n helper', run: n8nHelperLoop },
	{ name: 'fetch', run: fetchLoop },
];

const collectGarbage = () => (globalThis.gc as (() => void) | undefined)?.();

interface Measure {
	ms: number;
	cpuMs: number;
	heapMb: number;
	requests: number;
}

async function measure(service: Service, loop: (service: Service) => Promise<LoopResult>, clients: number) {
	collectGarbage();
	const heapBefore = process.memoryUsage().heapUsed;
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	let result: LoopResult | undefined = await loop(service);
	const ms = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	collectGarbage();
	const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
	const { records } = result;
	if (records.length !== clients || new Set(records.map((record) => record.id)).size !== clients) {
		throw new Error(`A loop read ${records.length} records of ${clients} clients`);
	}
	result = undefined;
	return { ms, cpuMs: (cpu.user + cpu.system) / 1000, heapMb, requests: await requestsReceived(service) } satisfies Measure;
}

const median = (numbers: number[]) => {
	const sorted = [...numbers].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** A markdown table, the columns in `left` aligned left, the others right. */
function table(header: string[], rows: string[][], left: number[]): string {
	const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
	const pad = (cell: string, column: number) =>
		left.includes(column) ? cell.padEnd(widths[column]) : cell.padStart(widths[column]);
	const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
	const rule = widths.map((width, column) => (left.includes(column) ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`));
	return [line(header), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
}

async function main() {
	if (!globalThis.gc) throw new Error('Run with node --expose-gc (npm run bench:paging does)');
	const rows: string[][] = [];
	for (const clients of firmSizes) {
		const service = await startService(clients);
		try {
			const measures = new Map(loops.map((loop) => [loop.name, [] as Measure[]]));
			for (const loop of loops) await measure(service, loop.run, clients); // warm-up: JIT, module state
			for (let run = 0; run < runs; run++) {
				// Each loop goes first, second, ... equally often: none always follows another's garbage.
				for (let turn = 0; turn < loops.length; turn++) {
					const loop = loops[(run + turn) % loops.length];
					measures.get(loop.name)?.push(await measure(service, loop.run, clients));
				}
			}
			const requests = new Set([...measures.values()].flat().map((m) => m.requests));
			if (requests.size !== 1) throw new Error(`The loops sent different numbers of requests: ${[...requests].join(', ')}`);
			const fetched = measures.get('fetch') ?? [];
			for (const loop of loops) {
				const own = measures.get(loop.name) ?? [];
				const ms = own.map((m) => m.ms);
				// Each run's loops ran within a second or two of each other: their ratio is little
				// moved by other work on the machine, which comes and goes over longer spans.
				const ratio = median(own.map((m, run) => m.ms / fetched[run].ms));
				rows.push([
					clients.toLocaleString('en'),
					String([...requests][0]),
					loop.name,
					median(ms).toFixed(0),
					Math.min(...ms).toFixed(0),
					`${ratio.toFixed(2)}x`,
					median(own.map((m) => m.cpuMs)).toFixed(0),
					median(own.map((m) => m.heapMb)).toFixed(1),
				]);
			}
		} finally {
			await stopService(service);
		}
	}
	console.log(`Get Many > Return All, pages of 200: ${runs} runs of each loop (sandbox in its own process)\n`);
	console.log(
		table(
			['clients', 'requests', 'loop', 'median ms', 'best ms', '÷ fetch, median', 'CPU ms, median', 'heap MB, median'],
			rows,
			[2],
		),
	);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
