/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Client > Create or Update: the requests it sends per item, for new and existing reference
 * numbers, one item and a batch, on a firm of 20,000 clients: run from the editor (manual, no
 * index), in a workflow's first production execution, and in the next, with the index the first
 * one saved (the same numbers again, other new ones), after no other change or after 1,000.
 *
 * Each run starts a sandbox holding exactly that firm (so every run lists the same number of
 * clients), runs the node in n8n-core's engine as the editor or a webhook runs it (test/helpers
 * savedWorkflow, the node's newest version) with one input item per reference number, checks
 * what it output (every item the client with its reference number; an existing number's client
 * the one that had it), counts the requests the sandbox received by kind, and weighs the node's
 * static data as n8n saves it. The sandbox runs in this process: the times include its work,
 * and are there to show the order of magnitude, not to compare.
 *
 * Run: npm run bench:upsert [-- --clients 20000 --runs 3]. docs/benchmarks.md quotes it.
 */
import { startSandbox, type Sandbox } from 'compliance-records-sandbox';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { credentialsFor, savedWorkflow } from '../test/helpers';
import { listAll, serviceCall } from '../test/helpers/serviceApi';

const { values } = parseArgs({
	options: {
		clients: { type: 'string', default: '20000' },
		runs: { type: 'string', default: '3' },
	},
});
const firmSize = Number(values.clients);
const runs = Number(values.runs);

interface Scenario {
	items: number;
	/** How many of the items have a reference number a client already has. */
	existing: number;
	/** From the editor, or the workflow's first production execution, or the next (after as many changes by others in the firm). */
	execution: 'manual' | 'first' | 'next';
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
	...batches.map((batch) => ({ ...batch, execution: 'manual' as const })),
	{ items: 1, existing: 1, execution: 'first' },
	{ items: 100, existing: 100, execution: 'first' },
	...batches.map((batch) => ({ ...batch, execution: 'next' as const })),
	{ items: 1, existing: 1, execution: 'next', changesBetween: 1_000 },
	{ items: 100, existing: 100, execution: 'next', changesBetween: 1_000 },
];

interface Counted {
	POST: number;
	/** GET /clients: listings, of the whole firm or of the changes since. */
	list: number;
	/** GET /clients/{id}: one client read. */
	read: number;
	PATCH: number;
	ms: number;
	/** The node's static data as n8n saves it, in KB. */
	savedKb: number;
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

async function runOnce(scenario: Scenario): Promise<Counted> {
	const sandbox: Sandbox = await startSandbox({ clients: firmSize });
	try {
		// Holders spread over the whole firm, so that none is near the start of the list by chance.
		const firm = await listAll(sandbox);
		const withReference = firm.filter((client) => typeof client.referenceNumber === 'string');
		const step = Math.max(1, Math.floor(withReference.length / Math.max(1, scenario.existing)));
		const holders = Array.from(
			{ length: scenario.existing },
			(_, index) => withReference[index * step],
		).map((client) => ({
			id: client.id as string,
			referenceNumber: client.referenceNumber as string,
		}));
		const workflow = savedWorkflow({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			parameters: UPSERT,
		});
		const itemsOf = (input: ReturnType<typeof inputFor>) =>
			input.map(({ reference }, index) => ({ reference, lastName: `Bench ${index}` }));
		if (scenario.execution === 'next') {
			const first = await workflow.run({ input: itemsOf(inputFor(scenario, holders)) });
			if (first.error) throw first.error;
			const others = firm.filter((client) => !holders.some((holder) => holder.id === client.id));
			for (const [index, other] of others.slice(0, scenario.changesBetween ?? 0).entries()) {
				await serviceCall(sandbox, 'PATCH', `/clients/${other.id as string}`, {
					nextReviewDate: `2031-01-${String((index % 28) + 1).padStart(2, '0')}`,
				});
			}
		}
		const input = inputFor(scenario, holders);
		sandbox.clearRequests();

		const started = performance.now();
		const run = await workflow.run({
			input: itemsOf(input),
			mode: scenario.execution === 'manual' ? 'manual' : 'webhook',
		});
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
			savedKb: Number((JSON.stringify(workflow.saved()).length / 1000).toFixed(1)),
		};
		if (counted.POST + counted.list + counted.read + counted.PATCH !== requests.length)
			throw new Error('The node sent another kind of request');
		return counted;
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

const executionOf = ({ execution, changesBetween }: Scenario) =>
	changesBetween
		? `${execution}, after ${changesBetween.toLocaleString('en-US')} changes`
		: execution;

async function main() {
	const rows: string[] = [];
	for (const scenario of scenarios) {
		const measured: Counted[] = [];
		for (let run = 0; run < runs; run++) measured.push(await runOnce(scenario));
		const totals = measured.map(({ POST, list, read, PATCH }) => POST + list + read + PATCH);
		const of = (key: keyof Counted) => spread(measured.map((counted) => counted[key]));
		const perItem = spread(totals.map((total) => Number((total / scenario.items).toFixed(2))));
		const ms = Math.round(median(measured.map((counted) => counted.ms))).toLocaleString('en-US');
		// n8n saves nothing after a manual execution.
		const savedKb = scenario.execution === 'manual' ? '–' : of('savedKb');
		rows.push(
			`| ${scenario.items} | ${describe(scenario)} | ${executionOf(scenario)} | ${of('POST')} | ${of('list')} | ${of('read')} | ${of('PATCH')} | ${spread(totals)} | ${perItem} | ${ms} | ${savedKb} |`,
		);
		console.error(
			`done: ${scenario.items} item(s), ${describe(scenario)}, ${executionOf(scenario)}`,
		);
	}
	console.log(
		`Create or Update on a firm of ${firmSize.toLocaleString('en-US')} clients, ${runs} runs per row (requests: every run; time: median)\n`,
	);
	console.log(
		'| items | reference numbers | execution | POST (create) | GET /clients (listing) | GET /clients/{id} | PATCH (update) | requests | requests per item | ms, median | static data KB |',
	);
	console.log(
		'|------:|:------------------|:----------|--------------:|-----------------------:|------------------:|---------------:|---------:|------------------:|-----------:|---------------:|',
	);
	for (const row of rows) console.log(row);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
