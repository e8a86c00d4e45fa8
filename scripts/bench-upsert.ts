/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Client > Create or Update: the requests it sends per item, for new and existing reference
 * numbers, one item and a batch, on firms of 20,000 and 100,000 clients: run from the editor
 * (manual), in a published workflow's production executions (regular mode), and as a queue-mode
 * worker of n8n 2.40 runs them (the workflow unpublished, no static data); the first execution
 * with a credential on an n8n process, and the next on the same process, after no other change
 * or after 1,000. Then the memory the process holds for a firm of 100,000 clients.
 *
 * Each run starts a sandbox holding exactly that firm (on a port of its own: an index of its
 * own in the process), runs the node in n8n-core's engine (test/helpers savedWorkflow, the node's
 * newest version) with one input item per reference number, checks what it output (every item
 * the client with its reference number; an existing number's client the one that had it) and
 * that it wrote nothing in the workflow's static data, and counts the requests the sandbox
 * received by kind. The sandbox runs in this process: the times include its work, and are there
 * to show the order of magnitude, not to compare.
 *
 * Run: npm run bench:upsert [-- --runs 3]. docs/benchmarks.md quotes it.
 */
import { startSandbox, type Sandbox } from 'compliance-records-sandbox';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { credentialsFor, savedWorkflow } from '../test/helpers';
import { listAll, serviceCall } from '../test/helpers/serviceApi';
import { heapInUse } from './bench-service';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);

/** How an execution sees the workflow: from the editor, published in regular mode, or as a queue-mode worker. */
type Where = 'manual' | 'regular' | 'worker';

interface Scenario {
	clients: number;
	items: number;
	/** How many of the items have a reference number a client already has. */
	existing: number;
	where: Where;
	/** The first execution with the credential on the process, or the next (after as many changes by others in the firm). */
	execution: 'first' | 'next';
	changesBetween?: number;
}

const batches = [
	{ items: 1, existing: 0 },
	{ items: 1, existing: 1 },
	{ items: 100, existing: 0 },
	{ items: 100, existing: 100 },
	{ items: 100, existing: 50 },
];
const scenarios: Scenario[] = [
	...batches.map((batch) => ({
		...batch,
		clients: 20_000,
		where: 'manual' as const,
		execution: 'first' as const,
	})),
	{ clients: 20_000, items: 1, existing: 1, where: 'regular', execution: 'first' },
	{ clients: 20_000, items: 100, existing: 100, where: 'regular', execution: 'first' },
	...batches.map((batch) => ({
		...batch,
		clients: 20_000,
		where: 'regular' as const,
		execution: 'next' as const,
	})),
	...[20_000, 100_000].flatMap((clients): Scenario[] => [
		{ clients, items: 1, existing: 1, where: 'worker', execution: 'first' },
		{ clients, items: 1, existing: 1, where: 'worker', execution: 'next' },
		{ clients, items: 1, existing: 0, where: 'worker', execution: 'next' },
		{ clients, items: 100, existing: 100, where: 'worker', execution: 'next' },
	]),
	{
		clients: 20_000,
		items: 1,
		existing: 1,
		where: 'regular',
		execution: 'next',
		changesBetween: 1_000,
	},
	{
		clients: 20_000,
		items: 100,
		existing: 100,
		where: 'regular',
		execution: 'next',
		changesBetween: 1_000,
	},
	{
		clients: 100_000,
		items: 1,
		existing: 1,
		where: 'worker',
		execution: 'next',
		changesBetween: 1_000,
	},
];

interface Counted {
	POST: number;
	/** GET /clients: listings, of the whole firm or of the changes since. */
	list: number;
	/** GET /clients/{id}: one client read. */
	read: number;
	PATCH: number;
	ms: number;
}

let runCounter = 0;

/** The input items: `existing` of them, spread evenly over the batch, hold a client's number; the others a new one. */
function inputFor(
	{ items, existing }: Scenario,
	holders: Array<{ id: string; referenceNumber: string }>,
) {
	const holdsExisting = (index: number) =>
		Math.floor(((index + 1) * existing) / items) > Math.floor((index * existing) / items);
	let used = 0;
	return Array.from({ length: items }, (_, index) => {
		if (!holdsExisting(index)) return { reference: `BENCH-${++runCounter}`, holder: undefined };
		const holder = holders[used++];
		return { reference: holder.referenceNumber, holder: holder.id };
	});
}

const UPSERT = {
	resource: 'client',
	operation: 'upsert',
	referenceNumber: '={{ $json.reference }}',
	status: 'EXISTING',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: '={{ $json.lastName }}',
};

const EXECUTION = {
	manual: { mode: 'manual' },
	regular: { mode: 'webhook' },
	worker: { mode: 'webhook', active: false, staticDataLoaded: false },
} as const;

/** `existing` clients holding a reference number, spread over the whole firm, so that none is near the start of the list by chance. */
async function holdersIn(sandbox: Sandbox, existing: number) {
	const firm = await listAll(sandbox);
	const withReference = firm.filter((client) => typeof client.referenceNumber === 'string');
	const step = Math.max(1, Math.floor(withReference.length / Math.max(1, existing)));
	const holders = Array.from({ length: existing }, (_, index) => withReference[index * step]).map(
		(client) => ({ id: client.id as string, referenceNumber: client.referenceNumber as string }),
	);
	const others = firm.filter((client) => !holders.some((holder) => holder.id === client.id));
	return { holders, others: others.map((client) => client.id as string) };
}

async function runOnce(scenario: Scenario): Promise<Counted> {
	const sandbox: Sandbox = await startSandbox({ clients: scenario.clients });
	try {
		const { holders, others } = await holdersIn(sandbox, scenario.existing);
		const workflow = savedWorkflow({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			parameters: UPSERT,
		});
		const itemsOf = (input: ReturnType<typeof inputFor>) =>
			input.map(({ reference }, index) => ({ reference, lastName: `Bench ${index}` }));
		const execution = EXECUTION[scenario.where];
		if (scenario.execution === 'next') {
			const first = await workflow.run({
				...execution,
				input: itemsOf(inputFor(scenario, holders)),
			});
			if (first.error) throw first.error;
			for (const [index, other] of others.slice(0, scenario.changesBetween ?? 0).entries()) {
				await serviceCall(sandbox, 'PATCH', `/clients/${other}`, {
					nextReviewDate: `2031-01-${String((index % 28) + 1).padStart(2, '0')}`,
				});
			}
		}
		const input = inputFor(scenario, holders);
		sandbox.clearRequests();

		const started = performance.now();
		const run = await workflow.run({ ...execution, input: itemsOf(input) });
		const ms = performance.now() - started;

		if (run.error) throw run.error;
		input.forEach(({ reference, holder }, index) => {
			const output = run.json[index];
			if (output?.referenceNumber !== reference || (holder !== undefined && output.id !== holder)) {
				throw new Error(
					`Item ${index} output ${JSON.stringify(output)} for reference ${reference} (holder ${holder ?? 'none'})`,
				);
			}
		});
		if (run.changedStaticData || Object.keys(workflow.staticData()).length > 0)
			throw new Error('The node wrote in the workflow static data');
		const requests = sandbox.requests();
		const count = (method: string, path?: RegExp) =>
			requests.filter((request) => request.method === method && (!path || path.test(request.path)))
				.length;
		const counted = {
			POST: count('POST'),
			list: count('GET', /^\/clients$/),
			read: count('GET', /^\/clients\/[^/]+$/),
			PATCH: count('PATCH'),
			ms,
		};
		if (counted.POST + counted.list + counted.read + counted.PATCH !== requests.length)
			throw new Error('The node sent another kind of request');
		return counted;
	} finally {
		await sandbox.close();
	}
}

/** The heap the process holds once an execution listed a firm of `clients`; checked: the next execution costs 2 requests. */
async function memoryHeld(clients: number): Promise<{ mb: number; perClient: number }> {
	const sandbox = await startSandbox({ clients });
	try {
		const {
			holders: [holder],
		} = await holdersIn(sandbox, 1);
		const workflow = savedWorkflow({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			parameters: UPSERT,
		});
		const input = [{ reference: holder.referenceNumber, lastName: 'Bench' }];
		sandbox.clearRequests();
		const before = await heapInUse();
		const first = await workflow.run({ ...EXECUTION.worker, input });
		if (first.error || first.json[0]?.id !== holder.id)
			throw first.error ?? new Error('Wrong client');
		sandbox.clearRequests();
		const held = (await heapInUse()) - before;
		await workflow.run({ ...EXECUTION.worker, input });
		if (sandbox.requests().length !== 2) throw new Error('The index was not kept');
		return { mb: held / 1e6, perClient: held / clients };
	} finally {
		await sandbox.close();
	}
}

const median = (numbers: number[]) => {
	const sorted = [...numbers].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One number when every run gave it, else the range. */
const spread = (numbers: number[]) => {
	const [low, high] = [Math.min(...numbers), Math.max(...numbers)];
	return low === high ? String(low) : `${low}–${high}`;
};

const describe = ({ items, existing }: Scenario) =>
	existing === 0
		? 'new'
		: existing === items
			? 'existing'
			: `${existing} existing, ${items - existing} new`;

const executionOf = ({ where, execution, changesBetween }: Scenario) => {
	const which =
		where === 'manual' ? 'manual' : `${where === 'worker' ? 'worker: ' : ''}${execution}`;
	return changesBetween
		? `${which}, after ${changesBetween.toLocaleString('en-US')} changes`
		: which;
};

async function main() {
	// Once before weighing: n8n's engine loads what it needs at its first execution.
	await memoryHeld(1_000);
	const memory = await memoryHeld(100_000);
	const rows: string[] = [];
	for (const scenario of scenarios) {
		const measured: Counted[] = [];
		for (let run = 0; run < runs; run++) measured.push(await runOnce(scenario));
		const totals = measured.map(({ POST, list, read, PATCH }) => POST + list + read + PATCH);
		const of = (key: keyof Counted) => spread(measured.map((counted) => counted[key]));
		const perItem = spread(totals.map((total) => Number((total / scenario.items).toFixed(2))));
		const ms = Math.round(median(measured.map((counted) => counted.ms))).toLocaleString('en-US');
		rows.push(
			`| ${scenario.clients.toLocaleString('en-US')} | ${scenario.items} | ${describe(scenario)} | ${executionOf(scenario)} | ${of('POST')} | ${of('list')} | ${of('read')} | ${of('PATCH')} | ${spread(totals)} | ${perItem} | ${ms} |`,
		);
		console.error(
			`done: ${scenario.clients} clients, ${scenario.items} item(s), ${describe(scenario)}, ${executionOf(scenario)}`,
		);
	}
	console.log(`Create or Update, ${runs} runs per row (requests: every run; time: median)\n`);
	console.log(
		'| clients | items | reference numbers | execution | POST (create) | GET /clients (listing) | GET /clients/{id} | PATCH (update) | requests | requests per item | ms, median |',
	);
	console.log(
		'|--------:|------:|:------------------|:----------|--------------:|-----------------------:|------------------:|---------------:|---------:|------------------:|-----------:|',
	);
	for (const row of rows) console.log(row);
	console.log(
		`\nHeld by the process for a firm of 100,000 clients: ${memory.mb.toFixed(1)} MB, ${Math.round(memory.perClient)} bytes per client`,
	);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
