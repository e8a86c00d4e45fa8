import type { INode } from 'n8n-workflow';

import { itemError } from '../transport/errors';
import { type InputPosition, invalid, trimmedText } from './checks';

export const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The window's name in both nodes (Get Many's filter, the trigger's Review Due). */
export const REVIEW_DUE_WITHIN = 'Review Due Within (Days)';

export function calendarDate(epochMs: number, timeZone: string): string {
	const parts = new Intl.DateTimeFormat('en-CA', {
		timeZone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).formatToParts(new Date(epochMs));
	const part = (type: string) => parts.find((p) => p.type === type)?.value;
	return `${part('year')}-${part('month')}-${part('day')}`;
}

export function addDays(date: string, days: number): string {
	const [, year, month, day] = CALENDAR_DATE.exec(date) ?? [];
	const shifted = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day) + days));
	return shifted.toISOString().slice(0, 10);
}

/** Today to today + N days, both included, as YYYY-MM-DD, which compare correctly as text. */
export interface ReviewWindow {
	from: string;
	to: string;
}

/** Before every date the service can hold: a window from it takes every date up to its end. */
export const EARLIEST_DATE = '0000-01-01';

/** 'Review Due Within (Days)' of either node: a whole number of days, 0 or more. */
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

/** A Luxon DateTime from an expression (`$now`), read by its shape: it is n8n's Luxon, this package bundles none. */
interface LuxonDateTime {
	isLuxonDateTime: true;
	isValid: boolean;
	invalidReason: string | null;
	year: number;
	month: number;
	day: number;
	toISO(): string | null;
}

function isLuxonDateTime(value: unknown): value is LuxonDateTime {
	return (
		typeof value === 'object' &&
		value !== null &&
		(value as { isLuxonDateTime?: unknown }).isLuxonDateTime === true
	);
}

/** A JavaScript Date, from whichever realm the expression ran in. */
function isJsDate(value: unknown): value is Date {
	return Object.prototype.toString.call(value) === '[object Date]';
}

/** ISO 8601, extended (2027-03-31T23:30:00.000-05:00) or basic (20270331T233000Z); RFC 3339's space for the T. */
const ISO_DATE_TIMES = [
	/^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[T ](?<hour>\d{2})(?::(?<minute>\d{2})(?::(?<second>\d{2})(?:[.,](?<fraction>\d+))?)?)?(?<zone>Z|(?<sign>[+-])(?<offsetHour>\d{2})(?::?(?<offsetMinute>\d{2}))?)?)?$/i,
	/^(?<year>\d{4})(?<month>\d{2})(?<day>\d{2})(?:T(?<hour>\d{2})(?:(?<minute>\d{2})(?:(?<second>\d{2})(?:[.,](?<fraction>\d+))?)?)?(?<zone>Z|(?<sign>[+-])(?<offsetHour>\d{2})(?::?(?<offsetMinute>\d{2}))?)?)?$/i,
];

type WrittenDateTime = Record<string, string | undefined>;

/** Hours, minutes and seconds in range (a second of 60 is ISO 8601's leap second). */
function isRealTime(written: WrittenDateTime): boolean {
	const within = (part: string | undefined, max: number) =>
		part === undefined || Number(part) <= max;
	return (
		within(written.hour, 23) &&
		within(written.minute, 59) &&
		within(written.second, 60) &&
		within(written.offsetHour, 23) &&
		within(written.offsetMinute, 59)
	);
}

function writtenDateTime(given: string | undefined): WrittenDateTime | undefined {
	const written =
		given === undefined
			? undefined
			: ISO_DATE_TIMES.map((format) => format.exec(given)?.groups).find(Boolean);
	return written && isRealTime(written) ? written : undefined;
}

function isRealDate(year: number, month: number, day: number): boolean {
	const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
	const daysInMonth = month === 2 ? (leapYear ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
	return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

const asDate = (year: number, month: number, day: number) =>
	`${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

function shown(value: unknown): string {
	if (typeof value === 'string') return `"${value}"`;
	if (typeof value === 'number' || typeof value === 'boolean')
		return `the ${typeof value} ${String(value)}`;
	return Array.isArray(value)
		? 'a list'
		: `a value of type ${value === null ? 'null' : typeof value}`;
}

const HOW_TO_ENTER_A_DATE =
	'Enter a date such as 2027-03-31, or an ISO 8601 date-time such as 2027-03-31T09:00:00Z.';

/** A date field's value as `YYYY-MM-DD`, in the zone it carries; a JavaScript Date has none: the workflow's, as n8n shows it. */
export function checkDate(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	if (isLuxonDateTime(value) || isJsDate(value)) {
		const date = isLuxonDateTime(value)
			? value.isValid && asDate(value.year, value.month, value.day)
			: !Number.isNaN(value.getTime()) && calendarDate(value.getTime(), timeZone);
		// An invalid DateTime or Date, or a year the service cannot store (before 0000 or after 9999).
		if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
			const reason =
				isLuxonDateTime(value) && value.invalidReason ? ` (${value.invalidReason})` : '';
			invalid(
				at,
				`'${label}' is not a valid date`,
				`The expression gave ${String(value)}${reason}. ${HOW_TO_ENTER_A_DATE}`,
			);
		}
		return date;
	}
	const given = typeof value === 'string' ? value.trim() : undefined;
	const written = writtenDateTime(given);
	if (!written)
		invalid(at, `'${label}' is not a date`, `Got ${shown(given ?? value)}. ${HOW_TO_ENTER_A_DATE}`);
	const [year, month, day] = [written.year, written.month, written.day].map(Number);
	if (!isRealDate(year, month, day)) {
		invalid(
			at,
			`'${label}' is not a real date`,
			`"${given}" does not exist in the calendar. Enter a date that does, such as 2027-03-31.`,
		);
	}
	return asDate(year, month, day);
}

export function checkBirthDate(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): { day: number; month: number; year: number } {
	if (typeof value === 'string' && /^\d{4}(-\d{1,2})?$/.test(value.trim())) {
		invalid(
			at,
			`'${label}' is incomplete`,
			`Got "${value.trim()}". The service needs day, month and year together: enter a date such as 1984-07-21.`,
		);
	}
	const [year, month, day] = checkDate(value, label, timeZone, at).split('-').map(Number);
	return { day, month, year };
}

function zoneOffsetMs(instant: Date, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
	}).formatToParts(instant);
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wallClockAsUtc = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return wallClockAsUtc - (instant.getTime() - instant.getUTCMilliseconds());
}

/** A moment as the service's UTC `date-time`; a time without a zone (the picker's) is in the workflow's time zone. */
export function checkInstant(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	const refuse: (got: string) => never = (got) =>
		invalid(
			at,
			`'${label}' is not a valid date and time`,
			`Got ${got}. Pick a date, or give an ISO 8601 date-time such as 2026-03-31T09:00:00Z.`,
		);
	if (isLuxonDateTime(value) || isJsDate(value)) {
		const time = isLuxonDateTime(value)
			? value.isValid
				? Date.parse(String(value.toISO()))
				: NaN
			: value.getTime();
		if (Number.isNaN(time)) refuse(String(value));
		return new Date(time).toISOString();
	}
	const given = trimmedText(value);
	const written = writtenDateTime(given);
	const [year, month, day, hour, minute, second] = [
		'year',
		'month',
		'day',
		'hour',
		'minute',
		'second',
	].map((part) => Number(written?.[part] ?? 0));
	if (!written || !isRealDate(year, month, day)) refuse(`"${given}"`);
	const wallClock = new Date(0);
	wallClock.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0 to 99 as 1900 to 1999
	wallClock.setUTCHours(
		hour,
		minute,
		second,
		Number((written.fraction ?? '').padEnd(3, '0').slice(0, 3)),
	);
	const wallClockAsUtc = wallClock.getTime();
	if (written.zone !== undefined) {
		const sign = written.sign === '-' ? -1 : 1;
		const offsetMinutes =
			sign * (Number(written.offsetHour ?? 0) * 60 + Number(written.offsetMinute ?? 0));
		return new Date(wallClockAsUtc - offsetMinutes * 60_000).toISOString();
	}
	const firstGuess = wallClockAsUtc - zoneOffsetMs(new Date(wallClockAsUtc), timeZone);
	// Re-read the offset at the guessed instant, in case a daylight-saving change lies between.
	return new Date(wallClockAsUtc - zoneOffsetMs(new Date(firstGuess), timeZone)).toISOString();
}
