import { DateTime } from 'luxon';
import type { INode } from 'n8n-workflow';

import { itemError } from '../transport/errors';
import { type InputPosition, invalid } from './checks';

// Luxon is n8n's own, provided to the nodes it loads (docs/dates.md).

export const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const REVIEW_DUE_WITHIN = 'Review Due Within (Days)';

export function calendarDate(epochMs: number, timeZone: string): string {
	return String(DateTime.fromMillis(epochMs, { zone: timeZone }).toISODate());
}

function addDays(date: string, days: number): string {
	return String(DateTime.fromISO(date, { zone: 'utc' }).plus({ days }).toISODate());
}

/** Both ends included, as YYYY-MM-DD, which compare correctly as text. */
export interface ReviewWindow {
	from: string;
	to: string;
}

export const EARLIEST_DATE = '0000-01-01';

export function checkReviewDays(value: unknown, node: INode, itemIndex?: number): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
		throw itemError(
			node,
			itemIndex,
			`'${REVIEW_DUE_WITHIN}' must be a whole number of days, 0 or more (got ${String(value)})`,
			'0 finds reviews due today; 30 those due in the next 30 days.',
		);
	}
	return value;
}

export function reviewWindow(today: string, days: number): ReviewWindow {
	return { from: today, to: addDays(today, days) };
}

export function isInWindow(window: ReviewWindow, date: unknown): date is string {
	return (
		typeof date === 'string' && CALENDAR_DATE.test(date) && date >= window.from && date <= window.to
	);
}

/** From whichever realm the expression ran in. */
function isJsDate(value: unknown): value is Date {
	return Object.prototype.toString.call(value) === '[object Date]';
}

/** A day first: 2027-03-31, 2027-W13-3, 2027-090, extended or basic. */
const WITH_DAY = /^[+-]?\d{4,6}-?(?:\d{2}-?\d{2}|W\d{2}-?\d|\d{3})(?!\d)/i;

/** A date first, as Luxon alone takes "12" for noon today; a space for the T is read too. */
function readText(text: string, zone: string): DateTime {
	if (!/^[+-]?\d{4}/.test(text)) return DateTime.invalid('unparsable');
	const iso = DateTime.fromISO(text, { zone, setZone: true });
	return iso.isValid || !/^\d{4}-\d{2}-\d{2} /.test(text)
		? iso
		: DateTime.fromSQL(text, { zone, setZone: true });
}

function readValue(value: unknown, zone: string): DateTime | undefined {
	if (DateTime.isDateTime(value)) return value;
	if (isJsDate(value)) return DateTime.fromJSDate(value, { zone });
	return typeof value === 'string' ? readText(value.trim(), zone) : undefined;
}

function shown(value: unknown): string {
	if (typeof value === 'string') return `"${value.trim()}"`;
	if (typeof value === 'number' || typeof value === 'boolean')
		return `the ${typeof value} ${String(value)}`;
	if (DateTime.isDateTime(value) || isJsDate(value)) return String(value);
	return Array.isArray(value)
		? 'a list'
		: `a value of type ${value === null ? 'null' : typeof value}`;
}

const HOW_TO_ENTER_A_DATE =
	'Enter a date such as 2027-03-31, or an ISO 8601 date and time such as 2027-03-31T09:00:00Z.';

function refuseDate(
	at: InputPosition,
	label: string,
	value: unknown,
	read: DateTime | undefined,
	howTo: string,
): never {
	if (DateTime.isDateTime(value) || isJsDate(value)) {
		const reason =
			DateTime.isDateTime(value) && value.invalidReason ? ` (${value.invalidReason})` : '';
		invalid(
			at,
			`'${label}' is not a valid date`,
			`The expression gave ${shown(value)}${reason}. ${howTo}`,
		);
	}
	if (read?.invalidReason === 'unit out of range') {
		invalid(
			at,
			`'${label}' is not a real date`,
			`${shown(value)} names a day or a time that does not exist. Enter one that does, such as 2027-03-31.`,
		);
	}
	invalid(at, `'${label}' is not a date`, `Got ${shown(value)}. ${howTo}`);
}

/** The date in the zone it carries; a JavaScript Date has none: the workflow's, as n8n shows it. */
export function checkDate(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	const read = readValue(value, timeZone);
	if (!read?.isValid) refuseDate(at, label, value, read, HOW_TO_ENTER_A_DATE);
	if (typeof value === 'string' && !WITH_DAY.test(value.trim())) {
		invalid(
			at,
			`'${label}' is incomplete`,
			`Got ${shown(value)}: no day. Enter the whole date, such as 2027-03-31.`,
		);
	}
	const date = String(read.toISODate());
	// A year the service cannot store (before 0000 or after 9999).
	if (!CALENDAR_DATE.test(date)) refuseDate(at, label, value, undefined, HOW_TO_ENTER_A_DATE);
	return date;
}

export function checkBirthDate(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): { day: number; month: number; year: number } {
	const [year, month, day] = checkDate(value, label, timeZone, at).split('-').map(Number);
	return { day, month, year };
}

/** A year, month or week too: its first moment. */
export function checkInstant(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	const read = readValue(value, timeZone);
	if (!read?.isValid) {
		refuseDate(
			at,
			label,
			value,
			read,
			'Pick a date, or enter an ISO 8601 date, or date and time, such as 2027-03-31 or 2027-03-31T09:00:00Z.',
		);
	}
	return new Date(read.toMillis()).toISOString();
}
