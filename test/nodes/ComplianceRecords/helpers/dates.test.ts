import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ComplianceRecords } from '../../../../nodes/ComplianceRecords/ComplianceRecords.node';
import {
	calendarDate,
	isInWindow,
	reviewWindow,
} from '../../../../nodes/ComplianceRecords/helpers/dates';
import { runNode } from '../../../helpers';
import { useSandbox } from '../../../helpers/sandbox';
import { serviceGet } from '../../../helpers/serviceApi';

/*
 * Next Review Date (Client > Create, Update) and Date of Birth (Client > Create for an individual
 * or a sole trader, Individual > Update): date pickers from node version 2, text in version 1.
 * Every version takes a date, any ISO 8601 date-time and an expression's DateTime or Date, and
 * sends the calendar date the value carries.
 */

describe('calendarDate', () => {
	it("is the date in the workflow's time zone", () => {
		const instant = Date.parse('2026-11-21T23:30:00Z');
		expect(calendarDate(instant, 'UTC')).toBe('2026-11-21');
		expect(calendarDate(instant, 'Asia/Tokyo')).toBe('2026-11-22');
		expect(calendarDate(instant, 'America/New_York')).toBe('2026-11-21');
	});
});

describe('the review window', () => {
	it('runs from today to today + N days, both included', () => {
		const window = reviewWindow('2026-11-21', 30);
		expect(window).toEqual({ from: '2026-11-21', to: '2026-12-21' });
		expect(isInWindow(window, '2026-11-21')).toBe(true);
		expect(isInWindow(window, '2026-12-21')).toBe(true);
		expect(isInWindow(window, '2026-12-22')).toBe(false);
	});

	it('leaves out overdue dates, missing dates and anything that is not a date', () => {
		const window = reviewWindow('2026-11-21', 30);
		expect(isInWindow(window, '2026-11-20')).toBe(false);
		expect(isInWindow(window, undefined)).toBe(false);
		expect(isInWindow(window, null)).toBe(false);
		expect(isInWindow(window, '2026-11-25T00:00:00Z')).toBe(false);
	});

	it('counts days across months and leap years', () => {
		expect(reviewWindow('2028-02-28', 1).to).toBe('2028-02-29');
		expect(reviewWindow('2027-02-28', 1).to).toBe('2027-03-01');
		expect(reviewWindow('2026-12-31', 30).to).toBe('2027-01-30');
	});
});

const { sandbox, credentials } = useSandbox({ clients: 4 });

/** The first client's and the first individual's IDs; the sandbox's log cleared after. */
async function records(): Promise<{ clientId: string; individualId: string }> {
	const [client] = (await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/clients')).data;
	const [individual] = (
		await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/individuals')
	).data;
	sandbox().clearRequests();
	return { clientId: client.id, individualId: individual.id };
}

interface DateRun {
	typeVersion?: number;
	timezone?: string;
	input?: IDataObject[];
}

const updateClient = async (
	updateFields: INodeParameters,
	{ typeVersion = 2, timezone, input }: DateRun = {},
) =>
	await runNode({
		credentials: credentials(),
		parameters: {
			resource: 'client',
			operation: 'update',
			clientId: (await records()).clientId,
			updateFields,
		},
		typeVersion,
		timezone,
		input,
	});

const updateIndividual = async (updateFields: INodeParameters, { typeVersion = 2 }: DateRun = {}) =>
	await runNode({
		credentials: credentials(),
		parameters: {
			resource: 'individual',
			operation: 'update',
			individualId: (await records()).individualId,
			updateFields,
		},
		typeVersion,
	});

const createClient = (parameters: INodeParameters) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'client', operation: 'create', status: 'PROSPECT', ...parameters },
		typeVersion: 2,
	});

/** The bodies the service received, in order. */
const receivedBodies = () =>
	sandbox()
		.requests()
		.map((request) => request.body as IDataObject);

/** The calendar date in a time zone, `days` days from now, as YYYY-MM-DD. */
const dateInZone = (timeZone: string, days: number) =>
	new Intl.DateTimeFormat('en-CA', {
		timeZone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).format(new Date(Date.now() + days * 24 * 60 * 60 * 1000));

describe('Dates', () => {
	describe('in the editor', () => {
		const { description } = new ComplianceRecords();

		/** The type of the field the editor shows under a collection of an operation, at a node version. */
		function fieldType(
			nodeValues: INodeParameters,
			collection: string,
			field: string,
			typeVersion: number,
		) {
			const parent = description.properties.find(
				(property) =>
					property.name === collection &&
					NodeHelpers.displayParameter(nodeValues, property, { typeVersion }, description),
			);
			const shown = (parent?.options as INodeProperties[]).filter(
				(option) =>
					option.name === field &&
					NodeHelpers.displayParameter(nodeValues, option, { typeVersion }, description),
			);
			return shown.map((option) => option.type);
		}

		it.each([
			[
				'Client > Create',
				'additionalFields',
				'nextReviewDate',
				{ resource: 'client', operation: 'create' },
			],
			[
				'Client > Update',
				'updateFields',
				'nextReviewDate',
				{ resource: 'client', operation: 'update' },
			],
			[
				'Client > Create',
				'individualFields',
				'birth',
				{ resource: 'client', operation: 'create', entityType: 'individual' },
			],
			[
				'Client > Create',
				'soleTraderFields',
				'birth',
				{ resource: 'client', operation: 'create', entityType: 'sole_trader' },
			],
			[
				'Individual > Update',
				'updateFields',
				'birth',
				{ resource: 'individual', operation: 'update' },
			],
		])(
			'%s: %s > %s is a date picker in version 2, text in version 1',
			(_operation, collection, field, nodeValues) => {
				expect(fieldType(nodeValues, collection, field, 2)).toEqual(['dateTime']);
				expect(fieldType(nodeValues, collection, field, 1)).toEqual(['string']);
			},
		);
	});

	describe('Next Review Date', () => {
		it.each([
			['a date', '2027-03-31', '2027-03-31'],
			["the date picker's value (a time, no zone)", '2027-03-31T00:00:00', '2027-03-31'],
			['a UTC date-time with a fraction', '2027-03-31T00:00:00.000Z', '2027-03-31'],
			[
				'a date-time with a negative offset near midnight (April 1 in UTC)',
				'2027-03-31T23:30:00-05:00',
				'2027-03-31',
			],
			[
				'a date-time with a positive offset just after midnight (March 31 in UTC)',
				'2027-04-01T00:30:00+02:00',
				'2027-04-01',
			],
			['a date-time without seconds, offset without colon', '2027-03-31T23:30+0530', '2027-03-31'],
			['the basic format', '20270331T233000Z', '2027-03-31'],
			['a basic-format date', '20270331', '2027-03-31'],
			['a space for the T, as databases write it', '2027-03-31 23:30:00', '2027-03-31'],
			['an ISO 8601 week date (Wednesday of week 13)', '2027-W13-3', '2027-03-31'],
			['a week date in basic format', '2027W133', '2027-03-31'],
			['an ISO 8601 ordinal date (day 90)', '2027-090', '2027-03-31'],
			['an ordinal date with a time and an offset', '2027-090T23:30:00-05:00', '2027-03-31'],
			['spaces around it', ' 2027-03-31 ', '2027-03-31'],
			[
				'a DateTime from an expression, in its own zone',
				'={{ DateTime.fromISO("2027-03-31T23:30:00-05:00", { setZone: true }) }}',
				'2027-03-31',
			],
			[
				'a DateTime in UTC just after midnight',
				'={{ DateTime.fromISO("2027-04-01T00:30:00Z", { zone: "utc" }) }}',
				'2027-04-01',
			],
		])('takes %s and sends the date', async (_case, nextReviewDate, sent) => {
			const run = await updateClient({ nextReviewDate });

			expect(run.error).toBeUndefined();
			expect(receivedBodies()).toEqual([{ nextReviewDate: sent }]);
			expect(run.json[0]).toMatchObject({ nextReviewDate: sent });
		});

		it("takes {{ $now.plus({ days: 30 }) }}: the date 30 days from now in the workflow's time zone", async () => {
			const run = await updateClient(
				{ nextReviewDate: '={{ $now.plus({ days: 30 }) }}' },
				{ timezone: 'Asia/Tokyo' },
			);

			expect(run.error).toBeUndefined();
			expect(receivedBodies()).toEqual([{ nextReviewDate: dateInZone('Asia/Tokyo', 30) }]);
		});

		it("reads a JavaScript Date, which has no zone, in the workflow's time zone", async () => {
			const nextReviewDate = '={{ new Date("2027-03-31T20:00:00Z") }}';

			const tokyo = await updateClient({ nextReviewDate }, { timezone: 'Asia/Tokyo' });
			const tokyoBody = receivedBodies();
			const london = await updateClient({ nextReviewDate }, { timezone: 'Europe/London' });

			expect([tokyo.error, london.error]).toEqual([undefined, undefined]);
			expect([tokyoBody, receivedBodies()]).toEqual([
				[{ nextReviewDate: '2027-04-01' }],
				[{ nextReviewDate: '2027-03-31' }],
			]);
		});

		it('sends the date on Create too, and the service stores it', async () => {
			const run = await createClient({
				entityType: 'individual',
				firstName: 'Ada',
				lastName: 'Lovelace',
				additionalFields: {
					nextReviewDate: '={{ DateTime.fromISO("2027-09-30T22:00:00-07:00", { setZone: true }) }}',
				},
			});

			expect(run.error).toBeUndefined();
			expect(receivedBodies()).toEqual([
				{
					status: 'PROSPECT',
					entity: { object: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
					nextReviewDate: '2027-09-30',
				},
			]);
			const stored = await serviceGet<{ data: IDataObject }>(
				sandbox(),
				`/clients/${String(run.json[0].id)}`,
			);
			expect(stored.data.nextReviewDate).toBe('2027-09-30');
		});

		it.each([
			[
				'a date in another form',
				'31/03/2027',
				"'Next Review Date' is not a date",
				'Got "31/03/2027". Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
			[
				'words',
				'next Tuesday',
				"'Next Review Date' is not a date",
				'Got "next Tuesday". Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
			[
				'a time that does not exist',
				'2027-03-31T24:30:00Z',
				"'Next Review Date' is not a real date",
				'"2027-03-31T24:30:00Z" names a day or a time that does not exist. Enter one that does, such as 2027-03-31.',
			],
			[
				'a date not in the calendar',
				'2027-02-29T10:00:00Z',
				"'Next Review Date' is not a real date",
				'"2027-02-29T10:00:00Z" names a day or a time that does not exist. Enter one that does, such as 2027-03-31.',
			],
			[
				'a month without its day',
				'2027-03',
				"'Next Review Date' is incomplete",
				'Got "2027-03": no day. Enter the whole date, such as 2027-03-31.',
			],
			[
				'a week without its day',
				'2027-W13',
				"'Next Review Date' is incomplete",
				'Got "2027-W13": no day. Enter the whole date, such as 2027-03-31.',
			],
			[
				'a time without a date (Luxon alone would take it for today)',
				'12:30',
				"'Next Review Date' is not a date",
				'Got "12:30". Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
			[
				'a number',
				'={{ 20270331 }}',
				"'Next Review Date' is not a date",
				'Got the number 20270331. Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
			[
				'an invalid DateTime',
				'={{ DateTime.fromISO("soon") }}',
				"'Next Review Date' is not a valid date",
				'The expression gave Invalid DateTime (unparsable). Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
			[
				'an invalid Date',
				'={{ new Date("soon") }}',
				"'Next Review Date' is not a valid date",
				'The expression gave Invalid Date. Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
		])(
			'refuses %s, naming the field, before sending anything',
			async (_case, nextReviewDate, message, description) => {
				const run = await updateClient({ nextReviewDate });

				expect(run.error?.message).toBe(`${message} [item 0]`);
				expect(run.error?.description).toBe(description);
				expect(sandbox().requests()).toEqual([]);
			},
		);

		it('names the input item whose date is refused', async () => {
			const run = await updateClient(
				{ nextReviewDate: '={{ $json.review }}' },
				{ input: [{ review: '2027-03-31T12:00:00Z' }, { review: '2027-13-01' }] },
			);

			expect(run.error?.message).toBe("'Next Review Date' is not a real date [item 1]");
			expect(receivedBodies()).not.toContainEqual({ nextReviewDate: '2027-13-01' });
		});
	});

	describe('Date of Birth', () => {
		it.each([
			["the date picker's value", '1984-07-21T00:00:00'],
			['a date', '1984-07-21'],
			['a date-time with an offset', '1984-07-21T23:30:00-05:00'],
			['a DateTime from an expression', '={{ DateTime.fromISO("1984-07-21") }}'],
		])('takes %s and sends day, month and year (Individual > Update)', async (_case, birth) => {
			const run = await updateIndividual({ birth });

			expect(run.error).toBeUndefined();
			expect(receivedBodies()).toEqual([{ birth: { day: 21, month: 7, year: 1984 } }]);
			expect(run.json[0]).toMatchObject({ dateOfBirth: '1984-07-21' });
		});

		it('sends the date of an individual and of a sole trader on Create', async () => {
			const individual = await createClient({
				entityType: 'individual',
				firstName: 'Grace',
				lastName: 'Hopper',
				individualFields: { birth: '1906-12-09T00:00:00' },
			});
			const soleTrader = await createClient({
				entityType: 'sole_trader',
				firstName: 'Tom',
				lastName: 'Baker',
				soleTraderFields: {
					birth: '={{ DateTime.fromISO("1970-01-31T08:00:00+01:00", { setZone: true }) }}',
				},
			});

			expect([individual.error, soleTrader.error]).toEqual([undefined, undefined]);
			expect(receivedBodies().map((body) => body.entity)).toEqual([
				{
					object: 'individual',
					firstName: 'Grace',
					lastName: 'Hopper',
					birth: { day: 9, month: 12, year: 1906 },
				},
				{
					object: 'sole_trader',
					individual: {
						firstName: 'Tom',
						lastName: 'Baker',
						birth: { day: 31, month: 1, year: 1970 },
					},
				},
			]);
		});

		it.each([
			[
				'a year and month only',
				'1984-07',
				"'Date of Birth' is incomplete",
				'Got "1984-07": no day. Enter the whole date, such as 2027-03-31.',
			],
			[
				'a date in another form',
				'21.07.1984',
				"'Date of Birth' is not a date",
				'Got "21.07.1984". Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.',
			],
		])(
			'refuses %s, naming the field, before sending anything',
			async (_case, birth, message, description) => {
				const run = await updateIndividual({ birth });

				expect(run.error?.message).toBe(`${message} [item 0]`);
				expect(run.error?.description).toBe(description);
				expect(sandbox().requests()).toEqual([]);
			},
		);
	});

	describe('version 1 (0.1.0)', () => {
		const typeVersion = 1;

		it.each([
			['2027-01-31', '2027-01-31'],
			[' 2027-01-31 ', '2027-01-31'],
		])('sends a date it took before exactly as before: %p', async (nextReviewDate, sent) => {
			const run = await updateClient({ nextReviewDate }, { typeVersion });

			expect(run.error).toBeUndefined();
			expect(receivedBodies()).toEqual([{ nextReviewDate: sent }]);
		});

		it('now also takes a date-time and a DateTime from an expression', async () => {
			const text = await updateClient(
				{ nextReviewDate: '2027-03-31T23:30:00-05:00' },
				{ typeVersion },
			);
			const textBody = receivedBodies();
			const dateTime = await updateIndividual(
				{ birth: '={{ DateTime.fromISO("1984-07-21") }}' },
				{ typeVersion },
			);

			expect([text.error, dateTime.error]).toEqual([undefined, undefined]);
			expect([textBody, receivedBodies()]).toEqual([
				[{ nextReviewDate: '2027-03-31' }],
				[{ birth: { day: 21, month: 7, year: 1984 } }],
			]);
		});
	});
});
