/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * Measures the sandbox at scale over real HTTP, as n8n would see it: the CLI runs in its own
 * process with 100,000 seeded clients; this script times start-up (spawn to banner), reads the
 * server's memory, and times pages of 200 clients with and without sinceModifiedAt (few and
 * many matches), both as the client sees them and as the server logs them.
 * Run: npm run bench (in sandbox/) [-- --clients N]. sandbox/README.md quotes its figures.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { clients: { type: 'string', default: '100000' } } });
const clients = Number(values.clients);

interface Timing {
	client: number;
	server: number;
}

function summary(label: string, timings: Timing[]): string {
	const stat = (pick: (timing: Timing) => number) => {
		const sorted = timings.map(pick).sort((a, b) => a - b);
		const at = (share: number) =>
			sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))].toFixed(1);
		return `median ${at(0.5)}, p95 ${at(0.95)}, max ${sorted[sorted.length - 1].toFixed(1)}`;
	};
	return `${label.padEnd(44)} ${String(timings.length).padStart(4)} pages | over HTTP ms: ${stat((t) => t.client)} | in the server ms: ${stat((t) => t.server)}`;
}

/** Resident memory of a process in MB (Linux), current and peak. */
function memoryOf(pid: number): string {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const mb = (name: string) =>
			Math.round(Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024);
		return `rss ${mb('VmRSS')} MB (peak ${mb('VmHWM')} MB)`;
	} catch {
		return 'not measurable here (no /proc)';
	}
}

async function main() {
	const started = performance.now();
	const server = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			'src/cli.ts',
			'--port',
			'0',
			'--auth-port',
			'0',
			'--clients',
			String(clients),
		],
		{ cwd: join(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
	);
	// The server's request log lines end with its own handling time: "GET /clients?... 200 1.3 ms".
	const serverTimes: number[] = [];
	let output = '';
	server.stdout.on('data', (chunk: Buffer) => {
		output += chunk;
		for (const match of chunk.toString().matchAll(/ GET \/clients\S* \d+ ([\d.]+) ms$/gm))
			serverTimes.push(Number(match[1]));
	});
	while (!output.includes('Press Ctrl-C to stop.')) {
		if (server.exitCode !== null) throw new Error(`The sandbox exited:\n${output}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	const readyMs = performance.now() - started;
	const baseUrl = /API base URL +(\S+)/.exec(output)![1];
	const apiKey = /API key +(\S+)/.exec(output)![1];
	console.log(
		`${clients} clients: the CLI started, seeded and listening in ${readyMs.toFixed(0)} ms (spawn to banner)`,
	);
	console.log(`server memory after start: ${memoryOf(server.pid!)}`);

	const headers = { 'accept-version': '1.0.0', authorization: `Bearer ${apiKey}` };
	/** Pages through a query (at most maxPages pages): timings and the ids seen. */
	const walk = async (query: string, maxPages = Infinity) => {
		const clientTimes: number[] = [];
		const ids: string[] = [];
		const firstServerTime = serverTimes.length;
		let cursor: string | undefined;
		do {
			const before = performance.now();
			const response = await fetch(
				`${baseUrl}/clients?limit=200&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
				{ headers },
			);
			const body = (await response.json()) as {
				data: { id: string }[];
				meta: { next_cursor?: string };
			};
			clientTimes.push(performance.now() - before);
			if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(body)}`);
			ids.push(...body.data.map((client) => client.id));
			cursor = body.meta.next_cursor;
		} while (cursor && clientTimes.length < maxPages);
		while (serverTimes.length < firstServerTime + clientTimes.length)
			await new Promise((resolve) => setTimeout(resolve, 5));
		const timings = clientTimes.map((client, index) => ({
			client,
			server: serverTimes[firstServerTime + index],
		}));
		return { timings, ids };
	};
	await walk('', 20); // warm-up: JIT and connection
	const all = await walk('');
	console.log(summary(`all ${all.ids.length} clients, no filter`, all.timings));

	// A few changes spread over the firm since the last poll: what a trigger asks every minute.
	const since = new Date().toISOString(); // the service clock is the machine's (no offset)
	for (let position = 0; position < all.ids.length; position += Math.ceil(all.ids.length / 25)) {
		await fetch(`${baseUrl}/clients/${all.ids[position]}`, {
			method: 'PATCH',
			headers: { ...headers, 'content-type': 'application/json' },
			body: JSON.stringify({ nextReviewDate: '2030-01-01' }),
		});
	}
	const few = [];
	for (let run = 0; run < 50; run++)
		few.push(await walk(`sinceModifiedAt=${encodeURIComponent(since)}`));
	console.log(
		summary(
			`sinceModifiedAt matching ${few[0].ids.length} (few), 50 polls`,
			few.flatMap((poll) => poll.timings),
		),
	);

	// Many matches: every client modified in the last 18 months of the seed.
	const manySince = new Date(Date.now() - 548 * 86_400_000).toISOString();
	const many = await walk(`sinceModifiedAt=${encodeURIComponent(manySince)}`);
	console.log(summary(`sinceModifiedAt matching ${many.ids.length} (many)`, many.timings));
	console.log(`server memory at the end: ${memoryOf(server.pid!)}`);

	server.kill('SIGINT');
	await new Promise((resolve) => server.on('exit', resolve));
}

void main();
