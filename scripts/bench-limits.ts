/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * The Compliance Records node behind a real service's limits, in n8n-core's engine (test/helpers
 * runNode), against the sandbox in a process of its own behind the latency proxy
 * (bench-service.ts). Tables:
 * 1. Requests in flight: Client > Create of many clients behind TLS at round-trip times of 0, 20
 *    and 50 ms. n8n's routing as it sends, every item at once (the floor: a minimal declarative
 *    node, below); the floor with at most N requests in flight, kept by the package's own
 *    pacer (transport/pacing.ts) for several N; and the node. Time, creates a second, the most
 *    requests in flight at once (counted in this process on Node's HTTP client diagnostics
 *    channels: from a request's start to its answer's end, or its failure), connections.
 * 2. Behind rate limits of 10, 40 and 100 requests a second (a burst of a second's worth): a
 *    Create of 1,000 clients and a Return All of 20,000, by the node, and the Create by the
 *    floor (what n8n's routing does on a 429: the run fails). Requests accepted and refused,
 *    time, the rate achieved (accepted a second, and that as a share of the limit), and the
 *    share of what the service would accept in that time: its burst, plus its rate for the time
 *    taken.
 * 3. Return All of 100,000 clients behind 100 requests a minute.
 * Every Create is checked: each client created exactly once. docs/benchmarks.md quotes the tables.
 *
 * Run: npm run bench:limits [-- --quick] [-- --table 2] (--quick: fewer clients and settings, about
 * a minute; --table: that table alone).
 */
import { subscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import type { LoggedRequest, Traffic } from 'compliance-records-sandbox';
import type {
	DeclarativeRestApiSettings,
	IExecutePaginationFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { ComplianceRecords } from '../nodes/ComplianceRecords/ComplianceRecords.node.ts';
import { MAX_IN_FLIGHT, Pacer, sendWithRetries } from '../nodes/ComplianceRecords/transport/pacing';
import { CredentialStore, runNode, type NodeRun, TestNodeTypes } from '../test/helpers';
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
		// Set by the script when it restarts itself trusting the certificate in this directory.
		'tls-dir': { type: 'string' },
	},
});

const PLAN = values.quick
	? {
			creates: 300,
			rttsMs: [0, 20],
			inFlight: [8, 32],
			limits: [40],
			limitedCreates: 300,
			limitedFirm: 5_000,
			slowFirm: { clients: 2_000, requests: 60, perSeconds: 60, burst: 5 },
		}
	: {
			creates: 2_000,
			rttsMs: [0, 20, 50],
			inFlight: [4, 8, 16, 32, 64],
			limits: [10, 40, 100],
			limitedCreates: 1_000,
			limitedFirm: 20_000,
			slowFirm: { clients: 100_000, requests: 100, perSeconds: 60, burst: 100 },
		};

// ---- What sends ----

/**
 * With 'In Flight' above 0, the floor's request goes through the package's own pacer and retry
 * rule, one pacer per execution holding that many: the node's way, with another N.
 */
async function sendPaced(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const store = this.getContext('node');
	store.pacer ??= new Pacer(this.getNodeParameter('inFlight', 1) as number);
	return await sendWithRetries(async () => await this.makeRoutingRequest(requestData), 'POST', {
		pacer: store.pacer as Pacer,
	});
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
				description:
					'At most this many requests in flight, through the package pacer; 0: as n8n sends',
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

/** The floor whose requests are paced: the same, its send through {@link sendPaced}. */
class PacedCreateFloor extends CreateFloor {
	constructor() {
		super();
		const operation = this.description.properties.find((property) => property.name === 'operation');
		const create = operation?.options?.[0] as { routing: { send?: object; operations?: object } };
		create.routing.send = { paginate: true };
		create.routing.operations = { pagination: sendPaced };
		this.description = {
			...this.description,
			name: 'pacedCreateFloor',
			displayName: 'Paced Create Floor',
			defaults: { name: 'Paced Create Floor' },
		};
	}
}

const floors = { unbounded: new CreateFloor(), paced: new PacedCreateFloor() };
const floorTypes = new TestNodeTypes([floors.unbounded, floors.paced]);
const newestVersion = Math.max(...[new ComplianceRecords().description.version].flat());

type Sender = {
	name: string;
	run: (
		credentials: CredentialStore,
		input: Array<{ firstName: string; lastName: string }>,
	) => Promise<NodeRun>;
};

const names = { firstName: '={{ $json.firstName }}', lastName: '={{ $json.lastName }}' };

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
	pacedFloor: (inFlight: number): Sender => ({
		name: `at most ${inFlight} in flight (floor)`,
		run: (credentials, input) =>
			runNode({
				credentials,
				input,
				nodeType: floors.paced,
				nodeTypes: floorTypes,
				parameters: { operation: 'create', inFlight, ...names },
			}),
	}),
	node: {
		name: `node (at most ${MAX_IN_FLIGHT} in flight)`,
		run: (credentials, input) =>
			runNode({
				credentials,
				input,
				typeVersion: newestVersion,
				parameters: {
					resource: 'client',
					operation: 'create',
					status: 'PROSPECT',
					entityType: 'individual',
					...names,
				},
			}),
	},
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
	const senders = [SENDERS.floor, ...PLAN.inFlight.map(SENDERS.pacedFloor), SENDERS.node];
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

/** A row of table 2: what a run achieved against the limit. */
function limitedRow(
	limit: number,
	operation: string,
	sender: string,
	{ ms, traffic, mostInFlight }: Measured,
	outcome: string,
): string[] {
	const accepted = traffic.requests - traffic.refused[429];
	const capacity = limit + limit * (ms / 1000);
	return [
		String(limit),
		operation,
		sender,
		outcome,
		count(accepted),
		count(traffic.refused[429]),
		String(mostInFlight),
		seconds(ms),
		(accepted / (ms / 1000)).toFixed(1),
		`${((accepted / (ms / 1000) / limit) * 100).toFixed(0)}%`,
		`${((accepted / capacity) * 100).toFixed(0)}%`,
	];
}

/** Table 2: behind rate limits, the node's Create and Return All, and the floor's Create. */
async function rateLimitTable(): Promise<string> {
	const rows: string[][] = [];
	for (const limit of PLAN.limits) {
		await withEndpoint(PLAN.limitedFirm, { rttMs: 0 }, async (endpoint) => {
			await returnAll(endpoint, PLAN.limitedFirm); // warm-up, unlimited
			const limited = async () =>
				await control(endpoint, 'POST', '/limits', { rateLimit: { requests: limit } }); // a full bucket
			await limited();
			const read = await returnAll(endpoint, PLAN.limitedFirm);
			rows.push(
				limitedRow(
					limit,
					`Return All of ${count(PLAN.limitedFirm)}`,
					'node',
					read,
					`${count(read.run.json.length)} read`,
				),
			);
			await limited();
			const created = await create(endpoint, SENDERS.node, PLAN.limitedCreates);
			rows.push(
				limitedRow(
					limit,
					`Create of ${count(PLAN.limitedCreates)}`,
					'node',
					created,
					`${count(created.created)} created`,
				),
			);
			await limited();
			const floor = await create(endpoint, SENDERS.floor, PLAN.limitedCreates, true);
			rows.push(
				limitedRow(
					limit,
					`Create of ${count(PLAN.limitedCreates)}`,
					'floor',
					floor,
					`fails: ${count(floor.created)} created`,
				),
			);
		});
	}
	return [
		'Behind a rate limit (burst: a second of it), plain HTTP, no added latency',
		'',
		table(
			[
				'limit/s',
				'operation',
				'sender',
				'outcome',
				'accepted',
				'429s',
				'most in flight',
				'seconds',
				'accepted/s',
				'÷ limit',
				'share of capacity',
			],
			rows,
			[1, 2, 3],
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
	const tables = [() => inFlightTable(certificate), rateLimitTable, slowLimitTable];
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
