import type { IDataObject } from 'n8n-workflow';

import { addDays } from '../../../../helpers/calendar';
import { useSandbox } from '../../../../helpers/sandbox';
import { createTriggerPoller, triggerRequests } from '../../../../helpers/trigger';
import { listAll, touchClient } from '../../../../helpers/serviceApi';

/*
 * Review Due: "today" is the n8n host's date in the workflow's time zone, so these tests move
 * the host's clock (only `Date` is faked; the sandbox, running in this process, follows it as
 * the real service's clock follows real time).
 */

const START = '2026-11-22T09:00:00.000Z';
const TODAY = '2026-11-22';
const DAY_MS = 24 * 60 * 60 * 1000;
jest.useFakeTimers({
	now: Date.parse(START),
	doNotFake: [
		'hrtime',
		'nextTick',
		'performance',
		'queueMicrotask',
		'setImmediate',
		'clearImmediate',
		'setInterval',
		'clearInterval',
		'setTimeout',
		'clearTimeout',
	],
});
afterAll(() => jest.useRealTimers());

const { sandbox, credentials } = useSandbox({ clients: 400, controls: true });
let clients: IDataObject[];
beforeAll(async () => {
	clients = await listAll(sandbox());
});

/** The host's clock moves forward (never back: the service's clock follows it). */
const advanceHostClock = (ms: number) => jest.setSystemTime(Date.now() + ms);
const today = () => new Date(Date.now()).toISOString().slice(0, 10);

function reviewPoller(options: { timezone?: string; fetchFullClient?: boolean } = {}) {
	return createTriggerPoller({
		parameters: {
			event: 'reviewDue',
			days: 30,
			options: { fetchFullClient: options.fetchFullClient },
		},
		credentials: credentials(),
		timezone: options.timezone ?? 'UTC',
	});
}

const dueBetween = (all: IDataObject[], from: string, to: string) =>
	all.filter(
		(client) =>
			typeof client.nextReviewDate === 'string' &&
			client.nextReviewDate >= from &&
			client.nextReviewDate <= to,
	);
const listRequests = () =>
	triggerRequests(sandbox()).filter((request) => request.path === '/clients');
const fullScans = () =>
	listRequests().filter((request) => request.query.sinceModifiedAt === undefined);
const setReviewDate = (id: string, date: string | null) =>
	touchClient(sandbox(), id, { nextReviewDate: date });
const outsideWindow = (from: string) =>
	clients.find((client) => !dueBetween([client], from, addDays(from, 30)).length)?.id as string;

it('first poll: lists the whole firm once, records the clients already due, emits none of them', async () => {
	const poller = reviewPoller();
	sandbox().clearRequests();
	expect(await poller.poll()).toEqual([]);
	expect(listRequests().length).toBe(fullScans().length);
	expect(fullScans().length).toBe(3); // 400 clients: two full pages, then the empty one

	const due = dueBetween(clients, TODAY, addDays(TODAY, 30));
	expect(due.length).toBeGreaterThan(10);
	const memory = poller.saved().due as Record<string, string>;
	expect(Object.values(memory).join('').length).toBe(due.length * 8);

	sandbox().clearRequests();
	expect(await poller.poll()).toEqual([]);
	expect(listRequests()).toHaveLength(1);
	expect(fullScans()).toHaveLength(0);
});

it('emits a date changed into the window once, and again only when it changes again', async () => {
	const poller = reviewPoller();
	await poller.poll();
	const [moved, alsoMoved] = clients
		.filter((client) => !client.nextReviewDate)
		.map((client) => client.id as string);
	const alreadyDue = dueBetween(clients, TODAY, addDays(TODAY, 30))[0].id as string;

	await setReviewDate(moved, addDays(TODAY, 10));
	await touchClient(sandbox(), alreadyDue); // modified, date unchanged: not a new due date
	sandbox().clearRequests();
	expect((await poller.poll()).map((client) => [client.id, client.nextReviewDate])).toEqual([
		[moved, addDays(TODAY, 10)],
	]);
	expect(fullScans()).toHaveLength(0);

	await touchClient(sandbox(), moved);
	expect(await poller.poll()).toEqual([]);
	await setReviewDate(moved, addDays(TODAY, 12));
	expect((await poller.poll()).map((client) => client.nextReviewDate)).toEqual([
		addDays(TODAY, 12),
	]);

	await setReviewDate(moved, addDays(TODAY, 200)); // leaves the window: nothing to say
	await setReviewDate(alsoMoved, addDays(TODAY, -3)); // overdue: not "coming within 30 days"
	expect(await poller.poll()).toEqual([]);
	await setReviewDate(moved, addDays(TODAY, 12)); // back inside: a change of date
	expect((await poller.poll()).map((client) => client.id)).toEqual([moved]);
	await setReviewDate(moved, null);
	expect(await poller.poll()).toEqual([]);
});

it('emits the dates that entered the window as days pass, from the first poll of each day, the only one that lists the whole firm', async () => {
	const poller = reviewPoller();
	await poller.poll();
	const start = today();
	// Just outside the window today: these enter it by the passage of time alone.
	const undated = clients
		.filter((client) => !client.nextReviewDate)
		.map((client) => client.id as string);
	for (const id of undated.slice(10, 13)) await setReviewDate(id, addDays(start, 31));
	for (const id of undated.slice(13, 15)) await setReviewDate(id, addDays(start, 33));
	expect(await poller.poll()).toEqual([]);

	advanceHostClock(DAY_MS);
	sandbox().clearRequests();
	const nextDay = await poller.poll();
	expect(fullScans().length).toBeGreaterThan(0);
	const entered = dueBetween(await listAll(sandbox()), addDays(start, 31), addDays(start, 31));
	expect(entered.length).toBeGreaterThanOrEqual(3);
	expect(nextDay.map((client) => client.id).sort()).toEqual(
		entered.map((client) => client.id).sort(),
	);

	sandbox().clearRequests();
	expect(await poller.poll()).toEqual([]);
	expect(await poller.poll()).toEqual([]);
	expect(fullScans()).toHaveLength(0);

	advanceHostClock(3 * DAY_MS); // polls missed for two days
	const later = await poller.poll();
	const enteredSince = dueBetween(await listAll(sandbox()), addDays(start, 32), addDays(start, 34));
	expect(enteredSince.length).toBeGreaterThanOrEqual(2);
	expect(later.map((client) => client.id).sort()).toEqual(
		enteredSince.map((client) => client.id).sort(),
	);
	const memory = poller.saved().due as Record<string, string>;
	expect(Object.keys(memory).every((date) => date >= addDays(start, 4))).toBe(true);
});

it("takes today in the workflow's time zone", async () => {
	jest.setSystemTime(Date.parse(`${addDays(today(), 1)}T11:00:00.000Z`)); // already tomorrow at UTC+14
	const utcDay = today();
	const utc = reviewPoller({ timezone: 'UTC' });
	const kiritimati = reviewPoller({ timezone: 'Pacific/Kiritimati' });
	await utc.poll();
	await kiritimati.poll();

	const id = outsideWindow(utcDay);
	await setReviewDate(id, addDays(utcDay, 31)); // day 30 in Kiritimati, day 31 in UTC
	expect((await kiritimati.poll()).map((client) => client.id)).toEqual([id]);
	expect(await utc.poll()).toEqual([]);
});

it('with Fetch Full Client, emits the full client', async () => {
	const poller = reviewPoller({ fetchFullClient: true });
	await poller.poll();
	const id = outsideWindow(today());
	await setReviewDate(id, addDays(today(), 5));
	const [emitted, ...rest] = await poller.poll();
	expect(rest).toEqual([]);
	expect(emitted).toMatchObject({ id, nextReviewDate: addDays(today(), 5) });
	expect(emitted).toHaveProperty('services');
});

it("drains the day's scan over several polls when the budget is short: each entering client emitted once, none missed", async () => {
	const poller = createTriggerPoller({
		parameters: { event: 'reviewDue', days: 30 },
		credentials: credentials(),
		timezone: 'UTC',
		budgetMs: 700,
	});
	sandbox().injectFaults({ count: 10_000, delayMs: 300, path: '/clients' }); // one page per poll
	try {
		const start = today();
		const undated = clients
			.filter((client) => !client.nextReviewDate)
			.map((client) => client.id as string);
		const positions = new Map(clients.map((client, index) => [client.id as string, index]));
		const scanned = undated.find((id) => (positions.get(id) as number) < 200) as string; // on page 1
		const ahead = undated.filter((id) => (positions.get(id) as number) >= 200)[5]; // on page 2
		for (const id of undated.slice(20, 23)) await setReviewDate(id, addDays(start, 31)); // enter tomorrow

		sandbox().clearRequests();
		expect(await poller.poll()).toEqual([]); // activation: the scan's first page
		expect(fullScans()).toHaveLength(1);
		// After activation, while the scan is under way: a date moved into the window on a page
		// already scanned, and one on a page not scanned yet.
		await setReviewDate(scanned, addDays(start, 7));
		await setReviewDate(ahead, addDays(start, 8));
		const polls: IDataObject[][] = [];
		for (let poll = 0; poll < 4; poll++) polls.push(await poller.poll());
		expect(
			polls
				.flat()
				.map((client) => client.id)
				.sort(),
		).toEqual([scanned, ahead].sort());

		advanceHostClock(DAY_MS); // the next day's scan, over three polls again
		sandbox().clearRequests();
		const nextDay: IDataObject[] = [];
		for (let poll = 0; poll < 4; poll++) nextDay.push(...(await poller.poll()));
		expect(fullScans()).toHaveLength(3);
		const entered = dueBetween(await listAll(sandbox()), addDays(start, 31), addDays(start, 31));
		expect(nextDay.map((client) => client.id).sort()).toEqual(
			entered.map((client) => client.id).sort(),
		);
		expect(entered.length).toBeGreaterThanOrEqual(3);
	} finally {
		sandbox().clearFaults();
	}
});
