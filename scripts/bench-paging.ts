/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Get Many > Return All: the Compliance Records node in n8n's engine, against n8n's own floor and
 * a bare `fetch` loop over the same pages; then behind TLS, at a few round-trip times.
 *
 * Each loop reads every client of a firm, pages of 200, the cursor passed back as received,
 * stopping at an empty page or one without a next_cursor:
 * - node: the node's Get Many > Return All in n8n-core's engine (WorkflowExecute, RoutingNode;
 *   test/helpers runNode), at version 1, whose items are the records as the service sends them,
 *   and at its newest version with Simplify on (its default);
 * - floor: the same Return All through a minimal declarative node defined below, paging with
 *   n8n's built-in generic pagination, in the same engine with the same credential: what any
 *   declarative node pays in n8n;
 * - fetch: Node's `fetch` with the same headers, on one kept-alive connection.
 * On every run, each loop must send the same requests and read the same records as `fetch`.
 *
 * The sandbox runs in a process of its own, behind a TCP proxy in another
 * (scripts/latency-proxy.ts) that counts the connections each loop opens and hangs up between
 * loops, so that every Return All starts without an open connection. Each run times the loops
 * one after the other in this process, in an order that rotates from run to run, after a warm-up
 * of each; a ratio is taken run by run, then the median. Tables:
 * 1. plain HTTP, no latency, firms of 2,000 and 20,000: connections, credential reads, time, CPU
 *    and heap per loop;
 * 2. 20,000 clients behind TLS, at round-trip times of 0, 5, 20 and 50 ms. The certificate is
 *    made for the run and trusted through NODE_EXTRA_CA_CERTS, which Node reads at start-up:
 *    the script restarts itself with it;
 * 3. Return All on firms of 100,000, 150,000 and 250,000 clients (n8n's item ceiling): outcome,
 *    requests, time and heap.
 * docs/benchmarks.md explains and quotes them.
 *
 * Run: npm run bench:paging [-- --quick] (--quick: small firm, fewer runs, two round-trip times).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import type { LoggedRequest } from 'compliance-records-sandbox';
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { ComplianceRecords } from '../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { CredentialStore, runNode, TestNodeTypes } from '../test/helpers';
import { SERVICE_HEADERS } from '../shared/service';
import {
	type Endpoint,
	floorDescription,
	heapInUse,
	restartTrustingTestCertificate,
	table,
	withEndpoint,
} from './bench-service';
import { certificateFilesIn, type CertificateFiles } from './test-certificate';

const { values } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		// Set by the script when it restarts itself trusting the certificate in this directory.
		'tls-dir': { type: 'string' },
	},
});

/**
 * What is measured. Behind TLS, fewer runs where latency rather than other work on the machine
 * sets the time (at 50 ms a run of the three loops takes about 40 s).
 */
const PLAN = values.quick
	? {
			firms: [2_000],
			runs: 5,
			linkFirm: 2_000,
			links: [
				{ rttMs: 0, runs: 3 },
				{ rttMs: 20, runs: 3 },
			],
			largeFirms: [150_000],
			largeRuns: 1,
		}
	: {
			firms: [2_000, 20_000],
			runs: 25,
			linkFirm: 20_000,
			largeFirms: [100_000, 150_000, 250_000],
			largeRuns: 3,
			links: [
				{ rttMs: 0, runs: 15 },
				{ rttMs: 5, runs: 9 },
				{ rttMs: 20, runs: 5 },
				{ rttMs: 50, runs: 3 },
			],
		};

const PAGE_SIZE = 200;

/** The requests the sandbox received since the last call (its log emptied), reduced to what the loops must agree on. */
async function requestsReceived(endpoint: Endpoint): Promise<string[]> {
	const controls = `${new URL(endpoint.service.baseUrl).origin}/__sandbox/requests`;
	const { data } = (await (await fetch(controls)).json()) as { data: LoggedRequest[] };
	await fetch(controls, { method: 'DELETE' });
	// The key is compared, never printed.
	return data.map(
		({ method, path, query, headers }) =>
			`${method} ${path} ${JSON.stringify(query)} accept-version: ${String(headers['accept-version'])}, ` +
			`key ${headers.authorization === `Bearer ${endpoint.apiKey}` ? 'sent' : 'missing'}`,
	);
}

// ---- The loops ----

/** What a loop read (to check it) and what it holds on to (to weigh it). */
interface LoopResult {
	ids: string[];
	held: unknown;
	/** In n8n's engine: how often n8n asked for the decrypted credential (in n8n, a database read and a decryption). */
	credentialReads?: number;
}

interface Loop {
	name: string;
	run(endpoint: Endpoint): Promise<LoopResult>;
}

interface ListPage {
	data: Array<{ id: string }>;
	meta: { next_cursor?: string };
}

/** The reference: `fetch`, page by page, as the node's paging asks; its connections kept alive. */
async function fetchLoop(endpoint: Endpoint): Promise<LoopResult> {
	const headers = { authorization: `Bearer ${endpoint.apiKey}`, ...SERVICE_HEADERS };
	const records: ListPage['data'] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({
			limit: String(PAGE_SIZE),
			...(cursor !== undefined && { cursor }),
		});
		const response = await fetch(`${endpoint.baseUrl}/clients?${query}`, { headers });
		if (!response.ok) throw new Error(`GET /clients answered ${response.status}`);
		const page = (await response.json()) as ListPage;
		records.push(...page.data);
		cursor = page.data.length > 0 && page.meta.next_cursor ? page.meta.next_cursor : undefined;
	} while (cursor !== undefined);
	return { ids: records.map((record) => record.id), held: records };
}

/**
 * n8n's floor: the simplest declarative node for this Return All, paging with n8n's own
 * pagination. Request defaults give the base URL and headers; the operation asks GET /clients for 200; each page's `data` becomes the
 * items; n8n's generic pagination sends the next cursor while a page has records and a cursor.
 */
class PagingFloor implements INodeType {
	description: INodeTypeDescription = floorDescription(
		'pagingFloor',
		'Paging Floor',
		'Get Many clients with n8n generic pagination (benchmark)',
		[
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'getAll',
				options: [
					{
						name: 'Get Many',
						value: 'getAll',
						action: 'Get many clients',
						routing: {
							request: { method: 'GET', url: '/clients', qs: { limit: PAGE_SIZE } },
							send: { paginate: true },
							output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
							operations: {
								pagination: {
									type: 'generic',
									properties: {
										continue:
											'={{ $response.body.data.length > 0 && !!$response.body.meta?.next_cursor }}',
										request: {
											qs: {
												limit: '={{ $request.qs.limit }}',
												cursor: '={{ $response.body?.meta?.next_cursor }}',
											},
										},
									},
								},
							},
						},
					},
				],
			},
		],
	);
}

const floorType = new PagingFloor();
const floorTypes = new TestNodeTypes([floorType]);

/** A Return All in n8n's engine, with the API key credential a user would enter: its output items. */
async function inEngine(
	endpoint: Endpoint,
	node: Omit<Parameters<typeof runNode>[0], 'credentials'>,
): Promise<LoopResult> {
	const credentials = new CredentialStore({
		complianceRecordsApi: { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey },
	});
	const run = await runNode({ credentials, ...node });
	if (run.error) throw run.error;
	return {
		ids: run.json.map((item) => String(item.id)),
		held: run.items,
		credentialReads: credentials.reads,
	};
}

const nodeVersions = [new ComplianceRecords().description.version].flat();
const newestVersion = Math.max(...nodeVersions);

const nodeLoop = (typeVersion: number, name: string): Loop => ({
	name,
	run: (endpoint) =>
		inEngine(endpoint, {
			typeVersion,
			parameters: { resource: 'client', operation: 'getAll', returnAll: true },
		}),
});

const LOOPS = {
	node: nodeLoop(1, 'node v1'),
	nodeSimplified: nodeLoop(newestVersion, `node v${newestVersion}, Simplify`),
	floor: {
		name: 'floor',
		run: (endpoint) =>
			inEngine(endpoint, {
				nodeType: floorType,
				nodeTypes: floorTypes,
				parameters: { operation: 'getAll' },
			}),
	},
	fetch: { name: 'fetch', run: fetchLoop },
} satisfies Record<string, Loop>;

// ---- Measuring ----

interface Measure {
	ms: number;
	cpuMs: number;
	heapMb: number;
	credentialReads?: number;
	connections: number;
	requests: number;
}

/** What every loop must send and read: `fetch`'s, taken once before the runs. */
interface Reference {
	ids: string[];
	requests: string[];
}

function sameAs(expected: string[], actual: string[], what: string, loop: Loop) {
	const differs = actual.findIndex((value, index) => value !== expected[index]);
	if (actual.length === expected.length && differs === -1) return;
	throw new Error(
		`${loop.name} ${what} differ from fetch's: ${actual.length} against ${expected.length}` +
			(differs === -1
				? ''
				: `; the first that differs, #${differs + 1}: ${actual[differs]} against ${expected[differs]}`),
	);
}

/** One Return All of `loop`, from no open connection: its time, CPU, heap, connections; checked. */
async function measure(endpoint: Endpoint, loop: Loop, reference: Reference): Promise<Measure> {
	await endpoint.link.hangUp();
	await sleep(20); // lets `fetch` see its connection closed before it would reuse it
	await endpoint.link.connectionsSinceLastCall();
	await requestsReceived(endpoint);
	const heapBefore = await heapInUse();
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	const result = await loop.run(endpoint); // used below, so what it holds is weighed with the heap
	const ms = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	const heapMb = ((await heapInUse()) - heapBefore) / 2 ** 20;
	const requests = await requestsReceived(endpoint);
	sameAs(reference.ids, result.ids, 'records', loop);
	sameAs(reference.requests, requests, 'requests', loop);
	return {
		ms,
		cpuMs: (cpu.user + cpu.system) / 1000,
		heapMb,
		credentialReads: result.credentialReads,
		connections: await endpoint.link.connectionsSinceLastCall(),
		requests: requests.length,
	};
}

/** `fetch`'s records and requests, which every loop is then checked against. */
async function referenceRead(endpoint: Endpoint, clients: number): Promise<Reference> {
	const { ids } = await fetchLoop(endpoint);
	const requests = await requestsReceived(endpoint);
	if (ids.length !== clients || new Set(ids).size !== clients) {
		throw new Error(
			`fetch read ${ids.length} records (${new Set(ids).size} distinct) of ${clients} clients`,
		);
	}
	return { ids, requests };
}

/** Loops already run once in this process, untimed: JIT-compiled, their modules loaded. */
const warm = new Set<Loop>();

/** `runs` rotated runs of the loops; each loop's measures, in run order. */
async function compare(endpoint: Endpoint, clients: number, loops: Loop[], runs: number) {
	const reference = await referenceRead(endpoint, clients);
	for (const loop of loops) {
		if (warm.has(loop)) continue;
		await measure(endpoint, loop, reference);
		warm.add(loop);
	}
	const measures = new Map(loops.map((loop) => [loop, [] as Measure[]]));
	for (let run = 0; run < runs; run++) {
		// Each loop goes first, second, ... equally often: none always follows another's garbage.
		for (let turn = 0; turn < loops.length; turn++) {
			const loop = loops[(run + turn) % loops.length];
			measures.get(loop)?.push(await measure(endpoint, loop, reference));
		}
	}
	return measures;
}

// ---- Reporting ----

const median = (numbers: number[]) => {
	const sorted = [...numbers].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** A loop's measures summed up, its ratios to others taken run by run. */
function summary(measures: Map<Loop, Measure[]>, loop: Loop) {
	const own = measures.get(loop) ?? [];
	const ratioTo = (other: Loop) => {
		const theirs = measures.get(other) ?? [];
		return `${median(own.map((m, run) => m.ms / theirs[run].ms)).toFixed(2)}x`;
	};
	/** A count the same in every run, or its range. */
	const range = (counts: number[]) => {
		const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
		return fewest === most ? String(fewest) : `${fewest}–${most}`;
	};
	const credentialReads = own.flatMap((m) => m.credentialReads ?? []);
	return {
		requests: String(own[0].requests),
		connections: range(own.map((m) => m.connections)),
		credentialReads: credentialReads.length > 0 ? range(credentialReads) : '–',
		medianMs: median(own.map((m) => m.ms)),
		bestMs: Math.min(...own.map((m) => m.ms)),
		ratioTo,
		cpuMs: median(own.map((m) => m.cpuMs)),
		heapMb: median(own.map((m) => m.heapMb)),
	};
}

const count = (n: number) => n.toLocaleString('en');

/** Table 1: plain HTTP, no latency; every loop, firms of several sizes. */
async function loopbackTable(): Promise<string> {
	const loops = [LOOPS.node, LOOPS.nodeSimplified, LOOPS.floor, LOOPS.fetch];
	const rows: string[][] = [];
	for (const clients of PLAN.firms) {
		const measures = await withEndpoint(clients, { rttMs: 0 }, (endpoint) =>
			compare(endpoint, clients, loops, PLAN.runs),
		);
		for (const loop of loops) {
			const s = summary(measures, loop);
			rows.push([
				count(clients),
				s.requests,
				loop.name,
				s.connections,
				s.credentialReads,
				s.medianMs.toFixed(0),
				s.bestMs.toFixed(0),
				s.ratioTo(LOOPS.floor),
				s.ratioTo(LOOPS.fetch),
				s.cpuMs.toFixed(0),
				s.heapMb.toFixed(1),
			]);
		}
	}
	return [
		`Get Many > Return All, pages of ${PAGE_SIZE}, plain HTTP on loopback: ${PLAN.runs} runs of each loop`,
		'',
		table(
			[
				'clients',
				'requests',
				'loop',
				'connections',
				'credential reads',
				'median ms',
				'best ms',
				'÷ floor',
				'÷ fetch',
				'CPU ms',
				'heap MB',
			],
			rows,
			[2],
		),
	].join('\n');
}

/** Table 2: one firm behind TLS, at several round-trip times; the node, the floor and `fetch`. */
async function linkTable(certificate: CertificateFiles): Promise<string> {
	const loops = [LOOPS.node, LOOPS.floor, LOOPS.fetch];
	const rows: string[][] = [];
	for (const { rttMs, runs } of PLAN.links) {
		const measures = await withEndpoint(PLAN.linkFirm, { rttMs, tls: certificate }, (endpoint) =>
			compare(endpoint, PLAN.linkFirm, loops, runs),
		);
		for (const loop of loops) {
			const s = summary(measures, loop);
			rows.push([
				String(rttMs),
				String(runs),
				loop.name,
				s.requests,
				s.connections,
				s.medianMs.toFixed(0),
				s.bestMs.toFixed(0),
				(s.medianMs / Number(s.requests)).toFixed(1),
				s.ratioTo(LOOPS.floor),
				s.ratioTo(LOOPS.fetch),
				s.cpuMs.toFixed(0),
			]);
		}
	}
	return [
		`Return All of ${count(PLAN.linkFirm)} clients behind TLS, by round-trip time`,
		'',
		table(
			[
				'RTT ms',
				'runs',
				'loop',
				'requests',
				'connections',
				'median ms',
				'best ms',
				'ms per request',
				'÷ floor',
				'÷ fetch',
				'CPU ms',
			],
			rows,
			[2],
		),
	].join('\n');
}

/**
 * One Return All of table 3, in a call of its own: a loop's frame would hold the previous run's
 * output while the next run is weighed, and the heap would count only the difference.
 */
async function largeReturnAll(endpoint: Endpoint) {
	await requestsReceived(endpoint);
	const heapBefore = await heapInUse();
	const started = performance.now();
	const result = await runNode({
		credentials: new CredentialStore({
			complianceRecordsApi: { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey },
		}),
		typeVersion: newestVersion,
		parameters: { resource: 'client', operation: 'getAll', returnAll: true },
	});
	const ms = performance.now() - started;
	const heapMb = ((await heapInUse()) - heapBefore) / 2 ** 20; // `result` is still held here
	const outcome = result.error
		? `stops: "${result.error.message.replace(/ \[item 0\]$/, '').slice(0, 48)}…"`
		: `${count(result.json.length)} items`;
	return { ms, heapMb, outcome, requests: (await requestsReceived(endpoint)).length };
}

/**
 * Table 3: Return All past n8n's item ceiling (the node outputs up to 100,000 items; more would
 * overflow n8n-core's RoutingNode): what it outputs or says, its requests, time and heap.
 */
async function largeFirmTable(): Promise<string> {
	const rows: string[][] = [];
	for (const clients of PLAN.largeFirms) {
		const measures = await withEndpoint(clients, { rttMs: 0 }, async (endpoint) => {
			const runs = [];
			for (let run = 0; run < PLAN.largeRuns; run++) runs.push(await largeReturnAll(endpoint));
			return runs;
		});
		rows.push([
			count(clients),
			measures[0].outcome,
			String(measures[0].requests),
			median(measures.map((m) => m.ms)).toFixed(0),
			median(measures.map((m) => m.heapMb)).toFixed(1),
		]);
	}
	return [
		`Return All on firms past n8n's item ceiling, node v${newestVersion} (Simplify): ${PLAN.largeRuns} runs each`,
		'',
		table(['clients', 'outcome', 'requests', 'median ms', 'heap MB'], rows, [1]),
	].join('\n');
}

async function main() {
	const tlsDir = values['tls-dir'];
	if (tlsDir === undefined) {
		process.exitCode = await restartTrustingTestCertificate('bench-paging');
		return;
	}
	if (!globalThis.gc) throw new Error('Run with node --expose-gc (npm run bench:paging does)');
	const certificate = certificateFilesIn(tlsDir);
	if (process.env.NODE_EXTRA_CA_CERTS !== certificate.certFile) {
		throw new Error(
			`--tls-dir needs NODE_EXTRA_CA_CERTS=${certificate.certFile} (run without --tls-dir)`,
		);
	}
	const started = performance.now();
	console.log(`${await loopbackTable()}\n`);
	console.log(`${await linkTable(certificate)}\n`);
	console.log(`${await largeFirmTable()}\n`);
	console.log(`Measured in ${((performance.now() - started) / 60_000).toFixed(1)} min.`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
