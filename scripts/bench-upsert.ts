/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Client > Create or Update: the requests it sends per item, for new and existing reference
 * numbers, one item and a batch, on a firm of 20,000 clients.
 *
 * Each run starts a sandbox holding exactly that firm (so every run lists the same number of
 * clients), runs the node in n8n-core's engine (test/helpers runNode, the node's newest
 * version) with one input item per reference number, checks what it output (every item the
 * client with its reference number; an existing number's client the one that had it), and
 * counts the requests the sandbox received, by method. The sandbox runs in this process: the
 * times include its work, and are there to show the order of magnitude, not to compare.
 *
 * Run: npm run bench:upsert [-- --clients 20000 --runs 3]. docs/benchmarks.md quotes it.
 */
import { startSandbox, type Sandbox } from 'compliance-records-sandbox';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { credentialsFor, runNode } from '../test/helpers';
import { listAll } from '../test/helpers/serviceApi';

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
}

const scenarios: Scenario[] = [
	{ items: 1, existing: 0 },
	{ items: 1, existing: 1 },
	{ items: 100, existing: 0 },
	{ items: 100, existing: 100 },
	{ items: 100, existing: 50 },
];

interface Counted {
	POST: number;
	GET: number;
	PATCH: number;
	ms: number;
}

let runCounter = 0;

/** The input items: `existing` of them, spread evenly over the batch, hold a client's number; the others a new one. */
function inputFor({ items, existing }: Scenario, holders: Array<{ id: string; referenceNumber: string }>) {
	const holdsExisting = (index: number) => Math.floor(((index + 1) * existing) / items) > Math.floor((index * existing) / items);
	let used = 0;
	return Array.from({ length: items }, (_, index) => {
		if (!holdsExisting(index)) return { reference: `BENCH-${++runCounter}`, holder: undefined };
		const holder = holders[used++];
		return { reference: holder.referenceNumber, holder: holder.id };
	});
}

async function runOnce(scenario: Scenario): Promise<Counted> {
	const sandbox: Sandbox = await startSandbox({ clients: firmSize });
	try {
		// Holders spread over the whole firm, so that none is near the start of the list by chance.
		const withReference = (await listAll(sandbox)).filter((client) => typeof client.referenceNumber === 'string');
		const step = Math.max(1, Math.floor(withReference.length / Math.max(1, scenario.existing)));
		const holders = Array.from({ length: scenario.existing }, (_, index) => withReference[index * step]).map((client) => ({
			id: client.id as string,
			referenceNumber: client.referenceNumber as string,
		}));
		const input = inputFor(scenario, holders);
		sandbox.clearRequests();

		const started = performance.now();
		const run = await runNode({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			input: input.map(({ reference }, index) => ({ reference, lastName: `Bench ${index}` })),
			parameters: {
				resource: 'client',
				operation: 'upsert',
				referenceNumber: '={{ $json.reference }}',
				status: 'EXISTING',
				entityType: 'individual',
				firstName: 'Ada',
				lastName: '={{ $json.lastName }}',
			},
		});
		const ms = performance.now() - started;

		if (run.error) throw run.error;
		input.forEach(({ reference, holder }, index) => {
			const output = run.json[index];
			if (output?.referenceNumber !== reference || (holder !== undefined && output.id !== holder)) {
				throw new Error(`Item ${index} output ${JSON.stringify(output)} for reference ${reference} (holder ${holder ?? 'none'})`);
			}
		});
		const count = (method: string) => sandbox.requests().filter((request) => request.method === method).length;
		const counted = { POST: count('POST'), GET: count('GET'), PATCH: count('PATCH'), ms };
		if (counted.POST + counted.GET + counted.PATCH !== sandbox.requests().length) throw new Error('The node sent another kind of request');
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
	existing === 0 ? 'new' : existing === items ? 'existing' : `${existing} existing, ${items - existing} new`;

async function main() {
	const rows: string[] = [];
	for (const scenario of scenarios) {
		const measured: Counted[] = [];
		for (let run = 0; run < runs; run++) measured.push(await runOnce(scenario));
		const totals = measured.map(({ POST, GET, PATCH }) => POST + GET + PATCH);
		const of = (key: keyof Counted) => spread(measured.map((counted) => counted[key]));
		const perItem = spread(totals.map((total) => Number((total / scenario.items).toFixed(2))));
		const ms = Math.round(median(measured.map((counted) => counted.ms))).toLocaleString('en-US');
		rows.push(
			`| ${scenario.items} | ${describe(scenario)} | ${of('POST')} | ${of('GET')} | ${of('PATCH')} | ${spread(totals)} | ${perItem} | ${ms} |`,
		);
		console.error(`done: ${scenario.items} item(s), ${describe(scenario)}`);
	}
	console.log(`Create or Update on a firm of ${firmSize.toLocaleString('en-US')} clients, ${runs} runs per row (requests: every run; time: median)\n`);
	console.log('| items | reference numbers | POST (create) | GET (listing) | PATCH (update) | requests | requests per item | ms, median |');
	console.log('|------:|:------------------|--------------:|--------------:|---------------:|---------:|------------------:|-----------:|');
	for (const row of rows) console.log(row);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
