/* eslint-disable no-console -- development tooling: runs in Node, not in n8n; prints what it measures */
import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../../../nodes/ComplianceRecords/transport/paging';
import { useSandbox } from '../../../helpers/sandbox';
import { createTriggerPoller, triggerRequests } from '../../../helpers/trigger';
import { clientIds } from '../../../helpers/serviceApi';

/*
 * Client Created or Modified at the scale firms produce, through n8n-core's poll executor,
 * against a sandbox of 100,000 clients:
 * - a burst (a nightly job, an import touching thousands of clients within a second), then
 *   quiet: every idle poll is one request again, once the burst is older than the commit lag;
 * - a backlog larger than one poll's budget: drained over several polls, each emitting what it
 *   listed, none failing, nothing lost or repeated, the saved state small throughout.
 * The service's clock moves a minute between polls, as an "Every Minute" trigger sees it.
 */

const FIRM = 100_000;
const { sandbox, credentials } = useSandbox({ clients: FIRM, controls: true, seed: 'scale' });
let ids: string[];
let serviceOffsetMs = 0;
beforeAll(async () => {
	ids = await clientIds(sandbox());
}, 60_000);
afterEach(() => sandbox().clearFaults());

const parameters = { event: 'clientModified' };
const pagesFor = (changes: number) => Math.floor(changes / MAX_PAGE_SIZE) + 1; // a full final page is followed by an empty one
const bytes = (data: IDataObject) => JSON.stringify(data).length;

/** A minute passes on the service's clock (which then runs again). */
function aMinuteLater() {
	serviceOffsetMs += 60_000;
	sandbox().setClock({ offsetMs: serviceOffsetMs, frozenAt: null });
}

/**
 * `clients` changed within one second of the service's time, in 20 steps of 50 ms (ties
 * within each), as the service's own batch job does it (an AML determination each).
 */
function burst(clients: string[]): void {
	const start = Date.parse(sandbox().now());
	const step = Math.ceil(clients.length / 20);
	for (let at = 0; at < clients.length; at += step) {
		sandbox().setClock({ frozenAt: new Date(start + (at / step) * 50).toISOString() });
		for (const id of clients.slice(at, at + step)) sandbox().completeAmlDetermination(id, 'LOW');
	}
	sandbox().setClock({ frozenAt: new Date(start + 999).toISOString() });
}

async function activated(options: { budgetMs?: number; parameters?: IDataObject } = {}) {
	const poller = createTriggerPoller({
		parameters: options.parameters ?? parameters,
		credentials: credentials(),
		budgetMs: options.budgetMs,
	});
	aMinuteLater();
	expect(await poller.poll()).toEqual([]);
	return poller;
}

/** Polls a minute apart until one emits nothing: what each poll emitted, its requests and time. */
async function pollUntilQuiet(poller: ReturnType<typeof createTriggerPoller>, limit: number) {
	const polls: Array<{ emitted: IDataObject[]; requests: number; ms: number; stateBytes: number }> =
		[];
	for (;;) {
		aMinuteLater();
		sandbox().clearRequests();
		const started = performance.now();
		const emitted = await poller.poll();
		const ms = performance.now() - started;
		polls.push({
			emitted,
			requests: triggerRequests(sandbox()).length,
			ms,
			stateBytes: bytes(poller.saved()),
		});
		if (emitted.length === 0 || polls.length > limit) return polls;
	}
}

/** Every idle poll: one request, for the clients modified since a time after the burst. */
async function expectIdlePollsOfOneRequest(
	poller: ReturnType<typeof createTriggerPoller>,
	burstEnd: number,
) {
	for (let poll = 0; poll < 3; poll++) {
		aMinuteLater();
		sandbox().clearRequests();
		expect(await poller.poll()).toEqual([]);
		const requests = triggerRequests(sandbox());
		expect(requests.map((request) => request.query.cursor)).toEqual([undefined]);
		expect(Date.parse(String(requests[0].query.sinceModifiedAt))).toBeGreaterThan(burstEnd);
	}
	expect(bytes(poller.saved())).toBeLessThan(200);
}

describe.each([20_000, FIRM])('%i clients changed within one second, then quiet', (size) => {
	it('the next poll emits each once; from then on, every idle poll is one request', async () => {
		const poller = await activated();
		const changed = ids.slice(0, size);
		burst(changed);
		const burstEnd = Date.parse(sandbox().now());

		aMinuteLater(); // the burst is older than the commit lag when the poll starts
		sandbox().clearRequests();
		const emitted = await poller.poll();
		expect(emitted).toHaveLength(size);
		expect(new Set(emitted.map((client) => client.id))).toEqual(new Set(changed));
		expect(triggerRequests(sandbox())).toHaveLength(pagesFor(size));

		await expectIdlePollsOfOneRequest(poller, burstEnd);
	});
});

it('a poll that ran inside the commit lag lists the burst once more, emitting nothing, and then idle polls are one request', async () => {
	const poller = await activated();
	const changed = ids.slice(30_000, 35_000);
	burst(changed);
	const burstEnd = Date.parse(sandbox().now());

	// The service's clock is still within the burst's last second: the burst is not yet older
	// than the commit lag, so this poll cannot know that nothing else is still being committed.
	expect(await poller.poll()).toHaveLength(changed.length);
	aMinuteLater();
	sandbox().clearRequests();
	expect(await poller.poll()).toEqual([]);
	expect(triggerRequests(sandbox())).toHaveLength(pagesFor(changed.length));
	await expectIdlePollsOfOneRequest(poller, burstEnd);
});

describe('a backlog larger than one poll’s budget', () => {
	const BACKLOG = 20_000;
	const PAGE_DELAY_MS = 100;
	const BUDGET_MS = 2_000;

	it(`${BACKLOG.toLocaleString('en')} changes, pages of ${PAGE_DELAY_MS} ms, a ${BUDGET_MS / 1000} s budget: drained within ⌈pages ÷ pages per budget⌉ + 1 polls, none lost, none repeated, no poll failing`, async () => {
		const poller = await activated({ budgetMs: BUDGET_MS });
		const changed = ids.slice(50_000, 50_000 + BACKLOG);
		burst(changed);
		sandbox().injectFaults({ count: 100_000, delayMs: PAGE_DELAY_MS, path: '/clients' });

		const polls = await pollUntilQuiet(poller, 20);
		const emitted = polls.flatMap((poll) => poll.emitted.map((client) => client.id as string));
		const draining = polls.filter((poll) => poll.emitted.length > 0);
		// How many pages fit in one budget, at the pace the pages actually came.
		const pageMs =
			draining.reduce((sum, poll) => sum + poll.ms, 0) /
			draining.reduce((sum, poll) => sum + poll.requests, 0);
		const pagesPerBudget = Math.floor(BUDGET_MS / pageMs);
		console.log(
			`backlog ${BACKLOG}: ${pagesFor(BACKLOG)} pages of ${pageMs.toFixed(0)} ms in ${draining.length} polls ` +
				`(requests per poll ${polls.map((poll) => poll.requests).join(', ')}; ${pagesPerBudget} pages per budget), ` +
				`largest saved state ${Math.max(...polls.map((poll) => poll.stateBytes))} bytes`,
		);
		expect(pageMs).toBeGreaterThanOrEqual(PAGE_DELAY_MS);
		expect(draining.length).toBeLessThanOrEqual(Math.ceil(pagesFor(BACKLOG) / pagesPerBudget) + 1);
		expect(draining.length).toBeGreaterThan(1); // it did take several polls
		// The pace above is the trigger's own; that it does not stop a poll early shows here: every
		// draining poll but the last went on for most of its budget.
		for (const poll of draining.slice(0, -1)) expect(poll.ms).toBeGreaterThan(BUDGET_MS / 2);
		expect({
			lost: changed.length - new Set(emitted).size,
			repeated: emitted.length - new Set(emitted).size,
		}).toEqual({ lost: 0, repeated: 0 });
		expect(new Set(emitted)).toEqual(new Set(changed));
		expect(Math.max(...polls.map((poll) => poll.stateBytes))).toBeLessThan(1_000);
		// Drained: the poll after it is one request again.
		expect(polls.at(-1)).toMatchObject({ emitted: [], requests: 1 });
	});

	it('recovers when the service refuses the saved page cursor (expired): none lost, none repeated', async () => {
		const poller = await activated({ budgetMs: 800 });
		const changed = ids.slice(80_000, 83_000); // 16 pages
		burst(changed);
		sandbox().injectFaults({ count: 100_000, delayMs: 100, path: '/clients' });

		const emitted: string[] = [];
		let restartedAtPageOne = 0;
		for (let poll = 0; poll < 20 && emitted.length < changed.length; poll++) {
			aMinuteLater();
			if (poll % 3 === 1) sandbox().expireCursors(); // now and then, a poll resumes with an expired cursor
			sandbox().clearRequests();
			const items = await poller.poll();
			const requests = triggerRequests(sandbox());
			if (requests[0].status === 400) {
				expect(requests[0].query.cursor).toBeDefined();
				expect(requests[1].query.cursor).toBeUndefined(); // the listing again from its first page
				restartedAtPageOne++;
			}
			emitted.push(...items.map((client) => client.id as string));
		}
		expect(restartedAtPageOne).toBeGreaterThan(0);
		aMinuteLater();
		expect(await poller.poll()).toEqual([]);
		expect(emitted).toHaveLength(changed.length);
		expect(new Set(emitted)).toEqual(new Set(changed));
	});

	it('with Fetch Full Client, stops part-way through a page when the budget runs short, and emits each client once, in full', async () => {
		// About 60 full clients fit in a budget, and a listing page has over a second to come even on a
		// busy machine: slower answers mean more polls, never a poll failing.
		const poller = await activated({
			budgetMs: 1_500,
			parameters: { ...parameters, options: { fetchFullClient: true } },
		});
		const changed = ids.slice(90_000, 90_300);
		burst(changed);
		sandbox().injectFaults({ count: 100_000, delayMs: 25, path: '/clients/' }); // each full client: 25 ms

		const polls = await pollUntilQuiet(poller, 40);
		const emitted = polls.flatMap((poll) => poll.emitted);
		expect(polls.filter((poll) => poll.emitted.length > 0).length).toBeGreaterThan(3); // pages of 200, part by part
		expect(emitted.map((client) => client.id).sort()).toEqual([...changed].sort());
		expect(emitted.every((client) => Array.isArray(client.services))).toBe(true);
		expect(Math.max(...polls.map((poll) => poll.stateBytes))).toBeLessThan(200 * 8 + 600);
	});
});
