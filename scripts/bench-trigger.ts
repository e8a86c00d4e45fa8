/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
   development tooling: runs in Node, not in n8n; prints what it measures */
/**
 * What the Compliance Records Trigger costs at scale: the trigger in n8n-core's own poll
 * executor (the tests' helpers) against sandboxes of the service, over real HTTP. Prints two
 * tables (docs/trigger.md quotes them):
 * 1. requests per idle poll, against the firm's size and the size of a burst of changes made
 *    within one second before it (the poll after the burst emitted it; the service's clock then
 *    moves a minute between polls, as an "Every Minute" trigger sees it); with the service's
 *    `Date` header, and without it (behind a proxy that drops it: the trigger's fallback, which
 *    is the rule of release 0.1.0);
 * 2. polls needed to drain a backlog of changes against n8n's poll budget, with pages slowed
 *    down, next to the ideal ⌈pages ÷ pages per budget⌉.
 * Run: npm run bench:trigger [-- --quick] (--quick: smaller firms and backlog).
 */
import Module from 'node:module';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { startSandbox, type Sandbox } from 'compliance-records-sandbox';
import { MAX_PAGE_SIZE } from '../nodes/ComplianceRecords/transport/paging';
import { clientIds } from '../test/helpers/serviceApi';

// tsx resolves with Node's resolver, which tries `.json` before `.ts`: `ComplianceRecords.node`
// would load the node's codex (ComplianceRecords.node.json) instead of its code. TypeScript first.
const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
const loadJson = extensions['.json'];
delete extensions['.json'];
extensions['.json'] = loadJson;

process.env.N8N_LOG_LEVEL ??= 'silent';
/** The tests' helpers (loaded once the order above is set): the trigger in n8n-core's poll executor. */
let helpers: typeof import('../test/helpers/trigger') &
	typeof import('../test/helpers/credentials');

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const FIRMS = values.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
/** Burst sizes, each at most the whole firm. */
const BURSTS = values.quick ? [0, 1_000] : [0, 1_000, 20_000, 100_000];
const BACKLOG = values.quick ? 4_000 : 20_000;
const PAGE_DELAY_MS = 200;
const BUDGETS_MS = [2_000, 5_000, 10_000, 36_000]; // 36 s: n8n's durable scheduler's budget

const table = (header: string[], rows: Array<Array<string | number>>) => {
	const widths = header.map((title, column) =>
		Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
	);
	const line = (cells: Array<string | number>) =>
		`| ${cells.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
	return [
		line(header),
		`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
		...rows.map(line),
	].join('\n');
};

/** The service's clock moves on by a minute (and runs). */
function aMinuteLater(sandbox: Sandbox, clock: { offsetMs: number }) {
	clock.offsetMs += 60_000;
	sandbox.setClock({ offsetMs: clock.offsetMs, frozenAt: null });
}

/** `ids` changed within one second, as the service's batch jobs do (an AML determination each). */
function burst(sandbox: Sandbox, ids: string[]) {
	const start = Date.parse(sandbox.now());
	ids.forEach((id, index) => {
		if (index % 1_000 === 0)
			sandbox.setClock({ frozenAt: new Date(start + (index * 999) / ids.length).toISOString() });
		sandbox.completeAmlDetermination(id, 'LOW');
	});
}

async function idleCost(
	sandbox: Sandbox,
	ids: string[],
	size: number,
	withDate: boolean,
	clock: { offsetMs: number },
) {
	const { createTriggerPoller, pageHookProxy, triggerRequests } = helpers;
	const proxy = await pageHookProxy(sandbox);
	try {
		proxy.sendDate(withDate);
		const poller = createTriggerPoller({
			parameters: { event: 'clientModified' },
			credentials: proxy.credentials(),
		});
		aMinuteLater(sandbox, clock);
		await poller.poll();
		burst(sandbox, ids.slice(0, size));
		aMinuteLater(sandbox, clock);
		const emitted = await poller.poll();
		if (emitted.length !== size)
			throw new Error(`The poll after a burst of ${size} emitted ${emitted.length}`);
		const idle: Array<{ requests: number; ms: number }> = [];
		for (let poll = 0; poll < 3; poll++) {
			aMinuteLater(sandbox, clock);
			sandbox.clearRequests();
			const started = performance.now();
			if ((await poller.poll()).length > 0) throw new Error('An idle poll emitted something');
			idle.push({ requests: triggerRequests(sandbox).length, ms: performance.now() - started });
		}
		return {
			requests: idle.map((poll) => poll.requests).join(', '),
			ms: Math.max(...idle.map((poll) => poll.ms)),
			state: JSON.stringify(poller.saved()).length,
		};
	} finally {
		await proxy.close();
	}
}

async function drain(
	sandbox: Sandbox,
	ids: string[],
	budgetMs: number,
	clock: { offsetMs: number },
) {
	const { createTriggerPoller, credentialsFor, triggerRequests } = helpers;
	const poller = createTriggerPoller({
		parameters: { event: 'clientModified' },
		credentials: credentialsFor(sandbox),
		budgetMs,
	});
	aMinuteLater(sandbox, clock);
	await poller.poll();
	burst(sandbox, ids.slice(0, BACKLOG));
	sandbox.injectFaults({ count: 1_000_000, delayMs: PAGE_DELAY_MS, path: '/clients' });
	const emitted = new Set<string>();
	let polls = 0;
	let pages = 0;
	let pollMs = 0;
	let largestState = 0;
	try {
		for (;;) {
			aMinuteLater(sandbox, clock);
			sandbox.clearRequests();
			const started = performance.now();
			const items = await poller.poll();
			if (items.length === 0) break;
			pollMs += performance.now() - started;
			pages += triggerRequests(sandbox).length;
			polls++;
			largestState = Math.max(largestState, JSON.stringify(poller.saved()).length);
			for (const item of items) {
				if (emitted.has(item.id as string)) throw new Error(`${item.id as string} emitted twice`);
				emitted.add(item.id as string);
			}
		}
	} finally {
		sandbox.clearFaults();
	}
	if (emitted.size !== BACKLOG) throw new Error(`Drained ${emitted.size} of ${BACKLOG}`);
	const pageMs = pollMs / pages;
	const ideal = Math.ceil(pages / Math.floor(budgetMs / pageMs));
	return { polls, pages, pageMs, ideal, largestState };
}

async function main() {
	helpers = {
		...(await import('../test/helpers/trigger')),
		...(await import('../test/helpers/credentials')),
	};
	const idleRows: Array<Array<string | number>> = [];
	const drainRows: Array<Array<string | number>> = [];
	for (const firm of FIRMS) {
		const sandbox = await startSandbox({ clients: firm, controls: true, seed: 'bench' });
		try {
			const clock = { offsetMs: 0 };
			const ids = await clientIds(sandbox);
			for (const size of new Set(BURSTS.map((burstSize) => Math.min(burstSize, firm)))) {
				const withDate = await idleCost(sandbox, ids, size, true, clock);
				const without = await idleCost(sandbox, ids, size, false, clock);
				idleRows.push([
					firm.toLocaleString('en'),
					size.toLocaleString('en'),
					withDate.requests,
					`${withDate.ms.toFixed(0)} ms`,
					`${withDate.state} B`,
					without.requests,
				]);
				console.error(`firm ${firm}, burst ${size}: done`);
			}
			if (firm === FIRMS[FIRMS.length - 1]) {
				for (const budgetMs of BUDGETS_MS) {
					const result = await drain(sandbox, ids, budgetMs, clock);
					drainRows.push([
						`${budgetMs / 1000} s`,
						result.pages,
						`${result.pageMs.toFixed(0)} ms`,
						result.polls,
						result.ideal,
						`${result.largestState} B`,
					]);
					console.error(`drain, budget ${budgetMs} ms: done`);
				}
			}
		} finally {
			await sandbox.close();
		}
	}

	console.log(
		`\nRequests per idle poll (three idle polls each), Client Created or Modified, pages of ${MAX_PAGE_SIZE}:\n`,
	);
	console.log(
		table(
			[
				'Firm (clients)',
				'Burst before (clients)',
				'Requests per idle poll',
				'Slowest idle poll',
				'Saved state',
				'Without Date (0.1.0 rule)',
			],
			idleRows,
		),
	);
	console.log(
		`\nDraining a backlog of ${BACKLOG.toLocaleString('en')} changes on a firm of ${FIRMS[FIRMS.length - 1].toLocaleString('en')}, pages slowed by ${PAGE_DELAY_MS} ms:\n`,
	);
	console.log(
		table(
			[
				'Poll budget',
				'Pages',
				'Page time',
				'Polls to drain',
				'Ideal ⌈pages ÷ pages per budget⌉',
				'Largest saved state',
			],
			drainRows,
		),
	);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
