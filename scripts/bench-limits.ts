/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * The Compliance Records node behind a real service's limits, in n8n-core's engine (test/helpers
 * runNode), against the sandbox in a process of its own behind the latency proxy
 * (bench-service.ts). Tables:
 * 1. Requests in flight: Client > Create of many clients behind TLS at round-trip times of 0, 20
 *    and 50 ms. n8n's routing as it sends, every item at once (the floor: a minimal declarative
 *    node, below); the floor with at most N requests in flight, from the first, for several N;
 *    and the node. Time, creates a second, the most requests in flight at once (counted in this
 *    process on Node's HTTP client diagnostics channels: from a request's start to its answer's
 *    end, or its failure), connections.
 * 2. Behind a rate limit of 10, 40 and 100 requests a second, kept as a token bucket with a
 *    burst of a second's worth, one of a quarter second's worth, and as a sliding window of one
 *    second: a Create of 300 and of 1,000 clients at round-trip times of 0 and 50 ms, by this
 *    node and by the node as it was before its pacer learned any limiter's shape (commit
 *    BASELINE, taken from git into a temporary directory), side by side: time, share of the limit (the
 *    time the limit needs for the run, its burst or window taken at once, over the time taken),
 *    and requests answered 429.
 * 3. The same Create of 300, 50 ms away, behind limits that tell themselves in RateLimit headers.
 * 4. 100 creates behind 10 a second (burst 20), fresh and after one create 9.5 s earlier in the
 *    same execution (the node run twice, as in Loop Over Items).
 * 5. Return All of 100,000 clients behind 100 requests a minute.
 * Every Create is checked: each client created exactly once. docs/benchmarks.md quotes the tables.
 *
 * Run: npm run bench:limits [-- --quick] [-- --table 2] (--quick: fewer clients and settings, a few
 * minutes; --table: that table alone). Table 2's cells alone: --creates 300 --limit 40,100 --rtt 0
 * (comma-separated lists), --now-only (this node without the baseline).
 */
import { execFileSync } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import type { LoggedRequest, RateLimit, Traffic } from 'compliance-records-sandbox';
import type {
	DeclarativeRestApiSettings,
	IExecutePaginationFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { ComplianceRecords } from '../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { MAX_IN_FLIGHT } from '../nodes/ComplianceRecords/transport/pacing';
import {
	CredentialStore,
	runInRounds,
	runNode,
	type NodeRun,
	TestNodeTypes,
} from '../test/helpers';
import {
	control,
	type Endpoint,
	floorDescription,
	restartTrustingTestCertificate,
	table,
	withEndpoint,
} from './bench-service';
import { certificateFilesIn, type CertificateFiles } from './test-certificate';

const { values } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		table: { type: 'string' },
		// Table 2's rows to run, as comma-separated lists (to re-run a few cells alone).
		creates: { type: 'string' },
		limit: { type: 'string' },
		rtt: { type: 'string' },
		// Table 2 by this node alone.
		'now-only': { type: 'boolean', default: false },
		// Set by the script when it restarts itself trusting the certificate in this directory.
		'tls-dir': { type: 'string' },
	},
});

const PLAN = values.quick
	? {
			creates: 300,
			rttsMs: [0, 20],
			inFlight: [8, 32],
			limitedCreates: [300],
			limits: [40],
			limitedRttsMs: [50],
			slowFirm: { clients: 2_000, requests: 60, perSeconds: 60, burst: 5 },
		}
	: {
			creates: 2_000,
			rttsMs: [0, 20, 50],
			inFlight: [4, 8, 16, 32, 64],
			limitedCreates: [300, 1_000],
			limits: [10, 40, 100],
			limitedRttsMs: [0, 50],
			slowFirm: { clients: 100_000, requests: 100, perSeconds: 60, burst: 100 },
		};

const listed = (option: string | undefined, plan: number[]) =>
	option === undefined ? plan : option.split(',').map(Number);
PLAN.limitedCreates = listed(values.creates, PLAN.limitedCreates);
PLAN.limits = listed(values.limit, PLAN.limits);
PLAN.limitedRttsMs = listed(values.rtt, PLAN.limitedRttsMs);

/** The node whose pacer table 2 compares with: before its pacer learned any limiter's shape. */
const BASELINE = 'c8a04bc';

// ---- What sends ----

/** At most `most` sends at once, the rest in turn: N in flight from the first (the node's pacer starts at 8 and widens). */
class InFlightBound {
	private inFlight = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly most: number) {}

	async run<T>(send: () => Promise<T>): Promise<T> {
		if (this.inFlight < this.most) this.inFlight++;
		else await new Promise<void>((resolve) => this.waiting.push(resolve));
		try {
			return await send();
		} finally {
			const next = this.waiting.shift();
			if (next) next();
			else this.inFlight--;
		}
	}
}

/** With 'In Flight' above 0, the floor's requests of one execution go at most that many at once. */
async function sendBounded(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const store = this.getContext('node');
	store.bound ??= new InFlightBound(this.getNodeParameter('inFlight', 1) as number);
	return await (store.bound as InFlightBound).run(
		async () => await this.makeRoutingRequest(requestData),
	);
}

/** n8n's floor for Create: the simplest declarative node that creates a client per input item. */
class CreateFloor implements INodeType {
	description: INodeTypeDescription = floorDescription(
		'createFloor',
		'Create Floor',
		'Create clients with n8n declarative routing (benchmark)',
		[
			{
				displayName: 'In Flight',
				name: 'inFlight',
				type: 'number',
				default: 0,
				description: 'At most this many requests in flight; 0: as n8n sends',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'create',
				options: [
					{
						name: 'Create',
						value: 'create',
						action: 'Create a client',
						routing: {
							request: {
								method: 'POST',
								url: '/clients',
								body: { status: 'PROSPECT', entity: { object: 'individual' } },
							},
						},
					},
				],
			},
			{
				displayName: 'First Name',
				name: 'firstName',
				type: 'string',
				default: '={{ $json.firstName }}',
				routing: { send: { type: 'body', property: 'entity.firstName' } },
			},
			{
				displayName: 'Last Name',
				name: 'lastName',
				type: 'string',
				default: '={{ $json.lastName }}',
				routing: { send: { type: 'body', property: 'entity.lastName' } },
			},
		],
	);
}

/** The floor whose requests are bounded: the same, its send through {@link sendBounded}. */
class BoundedCreateFloor extends CreateFloor {
	constructor() {
		super();
		const operation = this.description.properties.find((property) => property.name === 'operation');
		const create = operation?.options?.[0] as { routing: { send?: object; operations?: object } };
		create.routing.send = { paginate: true };
		create.routing.operations = { pagination: sendBounded };
		this.description = {
			...this.description,
			name: 'boundedCreateFloor',
			displayName: 'Bounded Create Floor',
			defaults: { name: 'Bounded Create Floor' },
		};
	}
}

const floors = { unbounded: new CreateFloor(), bounded: new BoundedCreateFloor() };
const floorTypes = new TestNodeTypes([floors.unbounded, floors.bounded]);
const newestVersion = Math.max(...[new ComplianceRecords().description.version].flat());

type Sender = {
	name: string;
	run: (
		credentials: CredentialStore,
		input: Array<{ firstName: string; lastName: string }>,
	) => Promise<NodeRun>;
};

const names = { firstName: '={{ $json.firstName }}', lastName: '={{ $json.lastName }}' };
const createClients = {
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	...names,
};

/** The node at BASELINE, taken from git into a directory of its own; its packages are this checkout's. */
let baseline: Promise<INodeType> | undefined;
function baselineNode(): Promise<INodeType> {
	baseline ??= (async () => {
		const dir = mkdtempSync(path.join(tmpdir(), `bench-limits-${BASELINE}-`));
		process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
		const archive = execFileSync('git', ['archive', BASELINE, 'nodes', 'shared', 'credentials']);
		execFileSync('tar', ['-x', '-C', dir], { input: archive });
		symlinkSync(path.resolve(__dirname, '..', 'node_modules'), path.join(dir, 'node_modules'));
		const loaded = (await import(
			path.join(dir, 'nodes/ComplianceRecords/ComplianceRecords.node.ts')
		)) as {
			ComplianceRecords: new () => INodeType;
		};
		return new loaded.ComplianceRecords();
	})();
	return baseline;
}

/** The Compliance Records node, this one or the baseline's, creating a client per input item. */
function nodeSender(name: string, nodeType: INodeType): Sender {
	const nodeTypes = new TestNodeTypes([nodeType]);
	return {
		name,
		run: (credentials, input) =>
			runNode({
				credentials,
				input,
				nodeType,
				nodeTypes,
				typeVersion: newestVersion,
				parameters: createClients,
			}),
	};
}

const SENDERS = {
	floor: {
		name: 'n8n routing, every item at once (floor)',
		run: (credentials, input) =>
			runNode({
				credentials,
				input,
				nodeType: floors.unbounded,
				nodeTypes: floorTypes,
				parameters: { operation: 'create', ...names },
			}),
	},
	boundedFloor: (inFlight: number): Sender => ({
		name: `at most ${inFlight} in flight (floor)`,
		run: (credentials, input) =>
			runNode({
				credentials,
				input,
				nodeType: floors.bounded,
				nodeTypes: floorTypes,
				parameters: { operation: 'create', inFlight, ...names },
			}),
	}),
	node: nodeSender(`node (at most ${MAX_IN_FLIGHT} in flight)`, new ComplianceRecords()),
} satisfies Record<string, Sender | ((inFlight: number) => Sender)>;

// ---- Measuring ----

interface Measured {
	ms: number;
	run: NodeRun;
	requests: LoggedRequest[];
	traffic: Traffic;
	connections: number;
	/** The most requests the client had in flight at once. */
	mostInFlight: number;
}

/** Requests of this process in flight, as Node's HTTP client reports them (what n8n's helpers send with). */
const inFlight = { now: 0, most: 0 };
subscribe('http.client.request.start', () => {
	inFlight.most = Math.max(inFlight.most, ++inFlight.now);
});
for (const channel of ['http.client.response.finish', 'http.client.request.error'])
	subscribe(channel, () => inFlight.now--);

/** One run of `work` against the endpoint, from no open connection and empty counts. */
async function measured(
	endpoint: Endpoint,
	work: (credentials: CredentialStore) => Promise<NodeRun>,
): Promise<Measured> {
	await endpoint.link.hangUp();
	await endpoint.link.connectionsSinceLastCall();
	await control(endpoint, 'DELETE', '/requests');
	await control(endpoint, 'DELETE', '/traffic');
	const credentials = new CredentialStore({
		complianceRecordsApi: { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey },
	});
	inFlight.most = inFlight.now;
	const started = performance.now();
	const run = await work(credentials);
	const ms = performance.now() - started;
	return {
		ms,
		run,
		requests: await control<LoggedRequest[]>(endpoint, 'GET', '/requests'),
		traffic: await control<Traffic>(endpoint, 'GET', '/traffic'),
		connections: await endpoint.link.connectionsSinceLastCall(),
		mostInFlight: inFlight.most,
	};
}

let batch = 0;

/** A Create of `clients` new clients by `sender`; throws unless each was created exactly once (or, with `mayFail`, at most once). */
async function create(
	endpoint: Endpoint,
	sender: Sender,
	clients: number,
	mayFail = false,
): Promise<Measured & { created: number }> {
	batch++;
	const input = Array.from({ length: clients }, (_, index) => ({
		firstName: 'Bench',
		lastName: `Batch ${batch} client ${index}`,
	}));
	const result = await measured(
		endpoint,
		async (credentials) => await sender.run(credentials, input),
	);
	const createdNames = result.requests
		.filter((request) => request.method === 'POST' && request.status === 201)
		.map((request) => (request.body as { entity: { lastName: string } }).entity.lastName);
	const distinct = new Set(createdNames);
	if (distinct.size !== createdNames.length)
		throw new Error(`${sender.name}: a client was created twice`);
	if (!mayFail && (result.run.error || distinct.size !== clients)) {
		throw new Error(
			`${sender.name}: created ${distinct.size} of ${clients} (${result.run.error?.message ?? 'no error'})`,
		);
	}
	return { ...result, created: distinct.size };
}

async function returnAll(endpoint: Endpoint, clients: number): Promise<Measured> {
	const result = await measured(
		endpoint,
		async (credentials) =>
			await runNode({
				credentials,
				typeVersion: newestVersion,
				parameters: { resource: 'client', operation: 'getAll', returnAll: true },
			}),
	);
	if (result.run.error || result.run.json.length !== clients) {
		throw new Error(
			`Return All read ${result.run.json.length} of ${clients} (${result.run.error?.message ?? 'no error'})`,
		);
	}
	return result;
}

// ---- Tables ----

const count = (n: number) => n.toLocaleString('en');
const seconds = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);

/** Table 1: Create behind TLS, by round-trip time and sender. */
async function inFlightTable(certificate: CertificateFiles): Promise<string> {
	const senders = [SENDERS.floor, ...PLAN.inFlight.map(SENDERS.boundedFloor), SENDERS.node];
	const rows: string[][] = [];
	for (const rttMs of PLAN.rttsMs) {
		await withEndpoint(0, { rttMs, tls: certificate }, async (endpoint) => {
			await create(endpoint, SENDERS.node, 20); // warm-up: modules loaded, JIT
			for (const sender of senders) {
				// Every item at once may lose connections on the way: a result, not a failure of the benchmark.
				const { ms, mostInFlight, connections, created, run } = await create(
					endpoint,
					sender,
					PLAN.creates,
					sender === SENDERS.floor,
				);
				const outcome = run.error
					? `${count(created)} created; fails: ${run.error.message.slice(0, 40)}…`
					: `${count(created)} created`;
				rows.push([
					String(rttMs),
					sender.name,
					outcome,
					seconds(ms),
					(created / (ms / 1000)).toFixed(0),
					String(mostInFlight),
					count(connections),
				]);
			}
		});
	}
	return [
		`Client > Create of ${count(PLAN.creates)} clients behind TLS, by round-trip time (RTT)`,
		'',
		table(
			[
				'RTT ms',
				'sender',
				'outcome',
				'seconds',
				'creates a second',
				'most in flight',
				'connections',
			],
			rows,
			[1, 2],
		),
	].join('\n');
}

/** The limiters of table 2, for a limit a second: as settings, and the requests each accepts at once. */
const LIMITERS: Array<{
	name: string;
	of: (limit: number) => RateLimit;
	atOnce: (limit: number) => number;
}> = [
	{
		name: "token bucket, a second's burst",
		of: (limit) => ({ requests: limit }),
		atOnce: (limit) => limit,
	},
	{
		name: "token bucket, a quarter second's burst",
		of: (limit) => ({ requests: limit, burst: limit / 4 }),
		atOnce: (limit) => limit / 4,
	},
	{
		name: 'sliding window of a second',
		of: (limit) => ({ requests: limit, shape: 'sliding-window' }),
		atOnce: (limit) => limit,
	},
];

const percent = (share: number) => `${(share * 100).toFixed(0)}%`;

/** A Create behind a fresh limiter: seconds, share of the limit, 429s (and their share of the requests). */
async function limitedCreate(
	endpoint: Endpoint,
	sender: Sender,
	clients: number,
	limit: number,
	limiter: (typeof LIMITERS)[number],
	headers?: RateLimit['headers'],
): Promise<string[]> {
	await control(endpoint, 'POST', '/limits', { rateLimit: { ...limiter.of(limit), headers } });
	const { ms, traffic } = await create(endpoint, sender, clients);
	const limitMs = (Math.max(0, clients - limiter.atOnce(limit)) / limit) * 1000;
	const refused = traffic.refused[429];
	return [
		seconds(ms),
		percent(limitMs / ms),
		`${count(refused)} (${percent(refused / traffic.requests)})`,
	];
}

/** Table 2: Create behind each limiter, by this node and the baseline's, side by side. */
async function rateLimitTable(): Promise<string> {
	const senders = values['now-only']
		? [SENDERS.node]
		: [nodeSender(`node at ${BASELINE}`, await baselineNode()), SENDERS.node];
	const rows: string[][] = [];
	for (const rttMs of PLAN.limitedRttsMs) {
		await withEndpoint(0, { rttMs }, async (endpoint) => {
			for (const sender of senders) await create(endpoint, sender, 20); // warm-up, unlimited
			for (const clients of PLAN.limitedCreates)
				for (const limit of PLAN.limits)
					for (const limiter of LIMITERS) {
						const cells = [];
						for (const sender of senders)
							cells.push(...(await limitedCreate(endpoint, sender, clients, limit, limiter)));
						rows.push([count(clients), String(limit), limiter.name, String(rttMs), ...cells]);
					}
		});
	}
	const columns = ['seconds', '÷ limit', '429s'];
	return [
		`Client > Create behind a rate limit, plain HTTP: the node at ${BASELINE} and this node`,
		'',
		table(
			[
				'creates',
				'limit/s',
				'limiter',
				'RTT ms',
				...senders.flatMap(({ name }) =>
					columns.map((column) => `${name === SENDERS.node.name ? 'now' : BASELINE}: ${column}`),
				),
			],
			rows.sort((one, other) => {
				const key = (row: string[]) => [
					Number(row[0].replace(',', '')),
					Number(row[1]),
					LIMITERS.findIndex((limiter) => limiter.name === row[2]),
					Number(row[3]),
				];
				const [mine, theirs] = [key(one), key(other)];
				return mine.map((value, index) => value - theirs[index]).find(Boolean) ?? 0;
			}),
			[2],
		),
	].join('\n');
}

/** Table 2b: the same behind limits that tell themselves in RateLimit-Policy and RateLimit headers. */
async function toldLimitTable(): Promise<string> {
	const senders = [nodeSender(`node at ${BASELINE}`, await baselineNode()), SENDERS.node];
	const [clients] = PLAN.limitedCreates;
	const rttMs = PLAN.limitedRttsMs.at(-1) as number;
	const rows: string[][] = [];
	await withEndpoint(0, { rttMs }, async (endpoint) => {
		for (const limit of PLAN.limits)
			for (const limiter of LIMITERS) {
				const cells = [];
				for (const sender of senders)
					cells.push(
						...(await limitedCreate(endpoint, sender, clients, limit, limiter, 'ratelimit')),
					);
				rows.push([String(limit), limiter.name, ...cells]);
			}
	});
	const columns = ['seconds', '÷ limit', '429s'];
	return [
		`Client > Create of ${count(clients)} behind a rate limit told in RateLimit headers, ${rttMs} ms away`,
		'',
		table(
			[
				'limit/s',
				'limiter',
				...columns.map((column) => `${BASELINE}: ${column}`),
				...columns.map((column) => `now: ${column}`),
			],
			rows,
			[1],
		),
	].join('\n');
}

/** Table 2c: 100 creates behind 10 a second (burst 20), fresh and after one create 9.5 s earlier in the same execution. */
async function idleTable(): Promise<string> {
	const nodes = [
		{ name: `node at ${BASELINE}`, nodeType: await baselineNode() },
		{ name: 'now', nodeType: new ComplianceRecords() },
	];
	const rows: string[][] = [];
	await withEndpoint(0, { rttMs: 0 }, async (endpoint) => {
		const credentials = new CredentialStore({
			complianceRecordsApi: { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey },
		});
		const rateLimit = { requests: 10, burst: 20 };
		for (const { name, nodeType } of nodes) {
			const sender = nodeSender(name, nodeType);
			await control(endpoint, 'POST', '/limits', { rateLimit });
			const fresh = await create(endpoint, sender, 100);
			await control(endpoint, 'POST', '/limits', { rateLimit });
			await control(endpoint, 'DELETE', '/requests');
			batch++;
			const clients = (size: number, round: number) =>
				Array.from({ length: size }, (_, index) => ({
					firstName: 'Bench',
					lastName: `Batch ${batch} round ${round} client ${index}`,
				}));
			const rounds = await runInRounds({
				credentials,
				nodeType,
				nodeTypes: new TestNodeTypes([nodeType]),
				typeVersion: newestVersion,
				parameters: createClients,
				batches: [clients(1, 1), clients(100, 2)],
				pauseMs: 9_500,
			});
			if (rounds.some((round) => round.error)) throw new Error(`${name}: a round failed`);
			const second = (await control<LoggedRequest[]>(endpoint, 'GET', '/requests')).filter(
				(request) =>
					(request.body as { entity: { lastName: string } }).entity.lastName.includes('round 2'),
			);
			const ms =
				Math.max(...second.map((request) => request.answeredAt as number)) - second[0].receivedAt;
			const refused = second.filter((request) => request.status === 429).length;
			rows.push([
				name,
				seconds(fresh.ms),
				count(fresh.traffic.refused[429]),
				seconds(ms),
				count(refused),
			]);
		}
	});
	return [
		'Client > Create of 100 behind 10 a second (burst 20): fresh, and after one create 9.5 s earlier in the same execution',
		'',
		table(
			['node', 'fresh: seconds', 'fresh: 429s', 'after the silence: seconds', 'after: 429s'],
			rows,
			[0],
		),
	].join('\n');
}

/** Table 3: a large Return All behind a limit per minute. */
async function slowLimitTable(): Promise<string> {
	const { clients, requests, perSeconds, burst } = PLAN.slowFirm;
	const row = await withEndpoint(clients, { rttMs: 0 }, async (endpoint) => {
		await control(endpoint, 'POST', '/limits', { rateLimit: { requests, perSeconds, burst } });
		const read = await returnAll(endpoint, clients);
		const accepted = read.traffic.requests - read.traffic.refused[429];
		return [
			count(clients),
			`${requests} a minute, burst ${burst}`,
			`${count(read.run.json.length)} read`,
			count(accepted),
			count(read.traffic.refused[429]),
			seconds(read.ms),
		];
	});
	return [
		`Return All of ${count(clients)} clients behind a limit per minute`,
		'',
		table(['clients', 'limit', 'outcome', 'accepted', '429s', 'seconds'], [row], [1, 2]),
	].join('\n');
}

async function main() {
	const tlsDir = values['tls-dir'];
	if (tlsDir === undefined) {
		process.exitCode = await restartTrustingTestCertificate('bench-limits');
		return;
	}
	const certificate = certificateFilesIn(tlsDir);
	if (process.env.NODE_EXTRA_CA_CERTS !== certificate.certFile) {
		throw new Error(
			`--tls-dir needs NODE_EXTRA_CA_CERTS=${certificate.certFile} (run without --tls-dir)`,
		);
	}
	const started = performance.now();
	const tables = [
		() => inFlightTable(certificate),
		rateLimitTable,
		toldLimitTable,
		idleTable,
		slowLimitTable,
	];
	for (const [index, print] of tables.entries()) {
		if (values.table === undefined || values.table === String(index + 1))
			console.log(`${await print()}\n`);
	}
	console.log(`Measured in ${((performance.now() - started) / 60_000).toFixed(1)} min.`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
