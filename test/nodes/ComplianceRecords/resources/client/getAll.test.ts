import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { listAll, serviceGet, touchClient } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 30 });

const getAll = (parameters: IDataObject, timezone?: string) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'client', operation: 'getAll', ...parameters },
		timezone,
	});

async function allClients(): Promise<IDataObject[]> {
	const list = await serviceGet<{ data: IDataObject[] }>(sandbox(), '/clients?limit=200');
	sandbox().clearRequests();
	return list.data;
}

describe('Client > Get Many', () => {
	it('outputs one item per client list item, 50 by default', async () => {
		const clients = await allClients();

		const run = await getAll({});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(clients.slice(0, 50));
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/clients',
			query: { limit: '50' },
			bearer: sandbox().apiKey,
		});
	});

	it('filters on Modified Since, sent as a UTC date-time', async () => {
		const clients = await allClients();
		const times = clients.map((client) => String(client.lastModifiedAt)).sort();
		const since = times[Math.floor(times.length / 2)];

		const run = await getAll({ returnAll: true, filters: { sinceModifiedAt: since } });

		expect(run.error).toBeUndefined();
		const expected = clients.filter((client) => String(client.lastModifiedAt) >= since);
		expect(run.json).toEqual(expected);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/clients',
			query: { limit: '200', sinceModifiedAt: new Date(since).toISOString() },
			bearer: sandbox().apiKey,
		});
	});

	it("reads a date picked without a zone in the workflow's time zone", async () => {
		await allClients();

		const winter = await getAll(
			{ filters: { sinceModifiedAt: '2026-01-15T09:30:00' } },
			'Europe/London',
		);
		const summer = await getAll(
			{ filters: { sinceModifiedAt: '2026-07-15T09:30:00' } },
			'Europe/London',
		);
		const newYork = await getAll(
			{ filters: { sinceModifiedAt: '2026-07-15T09:30:00' } },
			'America/New_York',
		);

		expect([winter.error, summer.error, newYork.error]).toEqual([undefined, undefined, undefined]);
		expect(
			sandbox()
				.requests()
				.map((request) => request.query.sinceModifiedAt),
		).toEqual(['2026-01-15T09:30:00.000Z', '2026-07-15T08:30:00.000Z', '2026-07-15T13:30:00.000Z']);
	});

	it.each([
		['ISO 8601 basic format', '20270331T093000Z', '2027-03-31T09:30:00.000Z'],
		[
			'basic format with an offset, to the minute',
			'20270331T0930+0100',
			'2027-03-31T08:30:00.000Z',
		],
		[
			'a basic date alone, midnight in the workflow time zone (Paris, summer time)',
			'20270331',
			'2027-03-30T22:00:00.000Z',
		],
		[
			'extended format with microseconds and an offset',
			'2027-03-31T09:30:00.123456-05:00',
			'2027-03-31T14:30:00.123Z',
		],
		[
			"an expression's DateTime",
			'={{ DateTime.fromISO("2027-03-31T09:30:00", { zone: "Europe/London" }) }}',
			'2027-03-31T08:30:00.000Z',
		],
		["an expression's Date", '={{ new Date("2027-03-31T09:30:00Z") }}', '2027-03-31T09:30:00.000Z'],
		['an ISO 8601 week date (Wednesday of week 13)', '2027-W13-3', '2027-03-30T22:00:00.000Z'],
		['a week date with a time and an offset', '2027-W13-3T09:30+01:00', '2027-03-31T08:30:00.000Z'],
		['an ISO 8601 ordinal date (day 90)', '2027-090', '2027-03-30T22:00:00.000Z'],
		['a month alone (its first moment)', '2027-03', '2027-02-28T23:00:00.000Z'],
		['a year alone (its first moment)', '2027', '2026-12-31T23:00:00.000Z'],
		['a week alone (its Monday)', '2027-W13', '2027-03-28T22:00:00.000Z'],
	])('takes %s, as the date fields do', async (_form, sinceModifiedAt, sent) => {
		await allClients();

		const run = await getAll({ filters: { sinceModifiedAt } }, 'Europe/Paris');

		expect(run.error).toBeUndefined();
		expect(
			sandbox()
				.requests()
				.map((request) => request.query.sinceModifiedAt),
		).toEqual([sent]);
	});

	it.each([
		['words', 'last tuesday'],
		['a time without a date', '12:30'],
		['a date in another form', '31/03/2027'],
	])(
		'refuses a Modified Since that is %s, before sending anything',
		async (_case, sinceModifiedAt) => {
			const run = await getAll({ filters: { sinceModifiedAt } });

			expect(run.error?.message).toBe("'Modified Since' is not a date [item 0]");
			expect(run.error?.description).toBe(
				`Got "${sinceModifiedAt}". Pick a date, or enter an ISO 8601 date, or date and time, such as 2027-03-31 or 2027-03-31T09:00:00Z.`,
			);
			expect(sandbox().requests()).toEqual([]);
		},
	);

	it.each([
		['a date that is not in the calendar', '2027-02-30T00:00:00Z'],
		['an hour out of range', '20270331T250000Z'],
		['a week that does not exist', '2027-W54-1'],
	])(
		'refuses a Modified Since that is %s, before sending anything',
		async (_case, sinceModifiedAt) => {
			const run = await getAll({ filters: { sinceModifiedAt } });

			expect(run.error?.message).toBe("'Modified Since' is not a real date [item 0]");
			expect(run.error?.description).toBe(
				`"${sinceModifiedAt}" names a day or a time that does not exist. Enter one that does, such as 2027-03-31.`,
			);
			expect(sandbox().requests()).toEqual([]);
		},
	);
});

describe("Client > Get Many, 'Review Due' (version 2.1)", () => {
	// More than one page of 200, so that the cost of reading the firm shows in the requests.
	const large = useSandbox({ clients: 450 });
	const DAY_MS = 86_400_000;
	const dateIn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

	const getMany = (parameters: IDataObject, typeVersion = 2.1) =>
		runNode({
			credentials: large.credentials(),
			parameters: { resource: 'client', operation: 'getAll', ...parameters },
			timezone: 'UTC',
			typeVersion,
		});

	async function everyClient(): Promise<IDataObject[]> {
		const clients = await listAll(large.sandbox());
		large.sandbox().clearRequests();
		return clients;
	}

	const reviewDate = (client: IDataObject) => String(client.nextReviewDate ?? '');

	it("'Any', as without the filter, keeps every client and reads only what Limit asks", async () => {
		const clients = await everyClient();

		const run = await getMany({ filters: { reviewDue: 'any' }, simplify: false });

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(clients.slice(0, 50));
		expect(large.sandbox().requests()).toHaveLength(1);
	});

	it("'Due Within (Days)', the filter's default, keeps the clients whose review is due from today to N days ahead, reading every page", async () => {
		const clients = await everyClient();
		const [today, last] = [dateIn(0), dateIn(30)];

		const run = await getMany({
			returnAll: true,
			filters: { reviewDue: 'dueWithin', reviewDueWithinDays: 30 },
			simplify: false,
		});

		expect(run.error).toBeUndefined();
		const due = clients.filter(
			(client) => reviewDate(client) >= today && reviewDate(client) <= last,
		);
		expect(due.length).toBeGreaterThan(3);
		expect(run.json).toEqual(due);
		expect(
			large
				.sandbox()
				.requests()
				.map((request) => request.query.limit),
		).toEqual(['200', '200', '200']);
	});

	it("'Overdue' keeps only the reviews already past", async () => {
		const overdue = (await everyClient())[11];
		await touchClient(large.sandbox(), String(overdue.id), { nextReviewDate: dateIn(-1) });
		const clients = await everyClient();

		const run = await getMany({
			returnAll: true,
			filters: { reviewDue: 'overdue' },
			simplify: false,
		});

		expect(run.error).toBeUndefined();
		const past = clients.filter(
			(client) => client.nextReviewDate !== undefined && reviewDate(client) < dateIn(0),
		);
		expect(past.map((client) => client.id)).toContain(overdue.id);
		expect(run.json).toEqual(past);
	});

	it("'Overdue or Due Within (Days)' keeps the reviews already past and those due in N days", async () => {
		const overdue = (await everyClient())[10];
		await touchClient(large.sandbox(), String(overdue.id), { nextReviewDate: dateIn(-3) });
		const clients = await everyClient();
		const last = dateIn(7);

		const run = await getMany({
			returnAll: true,
			filters: { reviewDue: 'overdueOrDueWithin', reviewDueWithinDays: 7 },
			simplify: false,
		});

		expect(run.error).toBeUndefined();
		const due = clients.filter(
			(client) => client.nextReviewDate !== undefined && reviewDate(client) <= last,
		);
		expect(due.some((client) => reviewDate(client) < dateIn(0))).toBe(true);
		expect(due.some((client) => reviewDate(client) >= dateIn(0))).toBe(true);
		expect(run.json).toEqual(due);
	});

	it('stops reading pages once Limit clients are due, and asks for full pages meanwhile', async () => {
		const clients = await everyClient();
		const due = clients.filter(
			(client) => reviewDate(client) >= dateIn(0) && reviewDate(client) <= dateIn(60),
		);
		const firstPageDue = due.filter((client) => clients.indexOf(client) < 200).length;

		const run = await getMany({
			limit: firstPageDue,
			filters: { reviewDue: 'dueWithin', reviewDueWithinDays: 60 },
			simplify: false,
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(due.slice(0, firstPageDue));
		expect(
			large
				.sandbox()
				.requests()
				.map((request) => request.query.limit),
		).toEqual(['200']);
	});

	it('applies Modified Since in the service and the review filter in the node', async () => {
		const clients = await everyClient();
		const since = clients.map((client) => String(client.lastModifiedAt)).sort()[400];

		const run = await getMany({
			returnAll: true,
			filters: { sinceModifiedAt: since, reviewDue: 'dueWithin', reviewDueWithinDays: 365 },
			simplify: false,
		});

		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(
			clients.filter(
				(client) =>
					String(client.lastModifiedAt) >= since &&
					reviewDate(client) >= dateIn(0) &&
					reviewDate(client) <= dateIn(365),
			),
		);
		expect(large.sandbox().requests()).toHaveLength(1);
	});

	it.each([
		[
			'a negative number of days',
			-1,
			"'Review Due Within (Days)' must be a whole number of days, 0 or more (got -1)",
		],
		[
			'a fraction of a day',
			1.5,
			"'Review Due Within (Days)' must be a whole number of days, 0 or more (got 1.5)",
		],
	])('refuses %s before any request', async (_case, reviewDueWithinDays, message) => {
		const run = await getMany({
			filters: { reviewDue: 'overdueOrDueWithin', reviewDueWithinDays },
		});

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(large.sandbox().requests()).toEqual([]);
	});

	it.each([
		['Review Due Within (Days) alone', { reviewDueWithinDays: 14 }, { reviewDue: 'dueWithin' }],
		['Include Overdue alone', { includeOverdue: true }, { reviewDue: 'overdue' }],
		[
			'both',
			{ includeOverdue: true, reviewDueWithinDays: 14 },
			{ reviewDue: 'overdueOrDueWithin' },
		],
		['Include Overdue off', { includeOverdue: false }, { reviewDue: 'any' }],
	])(
		'a node saved at version 2 with %s keeps returning what it did, the clients of the choice it means',
		async (_case, filters, choice) => {
			const overdue = (await everyClient())[12];
			await touchClient(large.sandbox(), String(overdue.id), { nextReviewDate: dateIn(-2) });
			large.sandbox().clearRequests();

			const saved = await getMany({ returnAll: true, filters }, 2);
			const chosen = await getMany({
				returnAll: true,
				filters: { ...choice, reviewDueWithinDays: 14 },
			});

			expect([saved.error, chosen.error]).toEqual([undefined, undefined]);
			expect(saved.json.length).toBeGreaterThan(0);
			expect(saved.json).toEqual(chosen.json);
		},
	);
});
