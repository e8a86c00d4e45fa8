import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	PreSendAction,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { calendarDate } from '../trigger/reviewWindow';

/**
 * Checks that run before any request is sent, so a mistake in the node's fields is reported with
 * the field's name instead of reaching the service. Each check throws or returns the value in
 * the form the service wants.
 */

/** Where a value came from, for the error: the node and the input item. */
interface InputPosition {
	node: INode;
	itemIndex: number;
}

function invalid(at: InputPosition, message: string, description: string): never {
	throw new NodeOperationError(at.node, `${message} [item ${at.itemIndex}]`, { itemIndex: at.itemIndex, description });
}

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
}

/** A value the operation cannot do without, trimmed. */
export function checkRequired(value: unknown, label: string, at: InputPosition): string {
	const given = text(value);
	if (!given) {
		invalid(at, `'${label}' is empty`, `Enter a value in '${label}', or map one from an earlier node with an expression.`);
	}
	return given;
}

export function checkId(value: unknown, label: string, at: InputPosition): string {
	const id = checkRequired(value, label, at);
	// Dot segments would be resolved by the URL parser even when encoded: no record has them.
	if (id === '.' || id === '..') invalid(at, `'${label}' "${id}" is not a valid ID`, `Enter the record's ID in '${label}'.`);
	return id;
}

/**
 * The most items one run of a node can output: n8n-core's RoutingNode hands them on in one
 * spread call, which overflows the stack at about 120,000 (measured: docs/benchmarks.md, "Firms past n8n's item ceiling").
 */
export const MAX_OUTPUT_ITEMS = 100_000;

export function checkLimit(value: unknown, at: InputPosition): number {
	const limit = Number(value);
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OUTPUT_ITEMS) {
		invalid(
			at,
			`'Limit' must be a whole number from 1 to ${MAX_OUTPUT_ITEMS.toLocaleString('en-US')} (got ${String(value)})`,
			"Set 'Limit' to how many records to return, or turn on 'Return All'.",
		);
	}
	return limit;
}

/**
 * A Luxon DateTime, as n8n's expressions give `$now`, `$today` or `DateTime.fromISO(...)`. Read by
 * its shape: it comes from n8n's own copy of Luxon (this package bundles none).
 */
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
	return typeof value === 'object' && value !== null && (value as { isLuxonDateTime?: unknown }).isLuxonDateTime === true;
}

/** A JavaScript Date, from whichever realm the expression ran in. */
function isJsDate(value: unknown): value is Date {
	return Object.prototype.toString.call(value) === '[object Date]';
}

/**
 * ISO 8601 calendar dates, alone or with a time of day, in extended format (2027-03-31,
 * 2027-03-31T23:30:00.000-05:00) or basic format (20270331T233000Z): the time to the hour,
 * minute or second, a fraction of a second, an offset, all optional. RFC 3339's space for the
 * T is taken too.
 */
const ISO_DATE_TIMES = [
	/^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[T ](?<hour>\d{2})(?::(?<minute>\d{2})(?::(?<second>\d{2})(?:[.,]\d+)?)?)?(?:Z|[+-](?<offsetHour>\d{2})(?::?(?<offsetMinute>\d{2}))?)?)?$/i,
	/^(?<year>\d{4})(?<month>\d{2})(?<day>\d{2})(?:T(?<hour>\d{2})(?:(?<minute>\d{2})(?:(?<second>\d{2})(?:[.,]\d+)?)?)?(?:Z|[+-](?<offsetHour>\d{2})(?::?(?<offsetMinute>\d{2}))?)?)?$/i,
];

/** Hours, minutes and seconds in range (a second of 60 is ISO 8601's leap second). */
function isRealTime(written: Record<string, string | undefined>): boolean {
	const within = (part: string | undefined, max: number) => part === undefined || Number(part) <= max;
	return (
		within(written.hour, 23) &&
		within(written.minute, 59) &&
		within(written.second, 60) &&
		within(written.offsetHour, 23) &&
		within(written.offsetMinute, 59)
	);
}

function isRealDate(year: number, month: number, day: number): boolean {
	const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
	const daysInMonth = month === 2 ? (leapYear ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
	return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

const asDate = (year: number, month: number, day: number) =>
	`${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** What a refused value was, for the error: text quoted, anything else by its type. */
function shown(value: unknown): string {
	if (typeof value === 'string') return `"${value}"`;
	if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
	return Array.isArray(value) ? 'a list' : `a value of type ${value === null ? 'null' : typeof value}`;
}

const HOW_TO_ENTER_A_DATE = 'Enter a date such as 2027-03-31, or an ISO 8601 date-time such as 2027-03-31T09:00:00Z.';

/**
 * A calendar date as the service's `YYYY-MM-DD`, from what n8n gives a date field: text (a date,
 * any ISO 8601 date-time, the date picker's wall-clock time with no zone), a Luxon DateTime or a
 * JavaScript Date. The date is the one in the time zone the value carries: as written for text
 * (its offset is the zone it is written in), the DateTime's own zone; a Date carries none and is
 * read in the workflow's time zone, as n8n shows it.
 */
export function checkDate(value: unknown, label: string, timeZone: string, at: InputPosition): string {
	if (isLuxonDateTime(value) || isJsDate(value)) {
		const date = isLuxonDateTime(value)
			? value.isValid && asDate(value.year, value.month, value.day)
			: !Number.isNaN(value.getTime()) && calendarDate(value.getTime(), timeZone);
		// An invalid DateTime or Date, or a year the service cannot store (before 0000 or after 9999).
		if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
			const reason = isLuxonDateTime(value) && value.invalidReason ? ` (${value.invalidReason})` : '';
			invalid(at, `'${label}' is not a valid date`, `The expression gave ${String(value)}${reason}. ${HOW_TO_ENTER_A_DATE}`);
		}
		return date;
	}
	const given = typeof value === 'string' ? value.trim() : undefined;
	const written = given === undefined ? undefined : ISO_DATE_TIMES.map((format) => format.exec(given)?.groups).find(Boolean);
	if (!written || !isRealTime(written)) {
		invalid(at, `'${label}' is not a date`, `Got ${shown(given ?? value)}. ${HOW_TO_ENTER_A_DATE}`);
	}
	const [year, month, day] = [written.year, written.month, written.day].map(Number);
	if (!isRealDate(year, month, day)) {
		invalid(at, `'${label}' is not a real date`, `"${given}" does not exist in the calendar. Enter a date that does, such as 2027-03-31.`);
	}
	return asDate(year, month, day);
}

/** A date of birth: the service needs day, month and year together. */
function checkBirthDate(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): { day: number; month: number; year: number } {
	if (typeof value === 'string' && /^\d{4}(-\d{1,2})?$/.test(value.trim())) {
		invalid(at, `'${label}' is incomplete`, `Got "${value.trim()}". The service needs day, month and year together: enter a date such as 1984-07-21.`);
	}
	const [year, month, day] = checkDate(value, label, timeZone, at).split('-').map(Number);
	return { day, month, year };
}

function checkEmail(value: unknown, label: string, at: InputPosition): string {
	const email = text(value);
	if (!/^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email)) {
		invalid(at, `'${label}' is not a valid email address`, `Got "${email}". Enter an address such as jane.doe@example.com.`);
	}
	return email;
}

/** Offset of a time zone from UTC at an instant, in milliseconds. */
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
	const wallClockAsUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
	return wallClockAsUtc - (instant.getTime() - instant.getUTCMilliseconds());
}

/**
 * A moment in time as the service's `date-time` (ISO 8601 in UTC). n8n's date picker gives a
 * wall-clock time with no zone; that is read in the workflow's time zone.
 */
function checkInstant(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	const given = isLuxonDateTime(value) ? String(value.toISO()) : text(value);
	const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(given);
	const wallClock = /^\d{4}-\d{2}-\d{2}$/.test(given) ? `${given}T00:00:00` : given;
	const parsed = new Date(hasZone ? given : `${wallClock}Z`);
	if (!/^\d{4}-\d{2}-\d{2}/.test(given) || Number.isNaN(parsed.getTime())) {
		invalid(at, `'${label}' is not a valid date and time`, `Got "${given}". Pick a date, or give an ISO 8601 date-time such as 2026-03-31T09:00:00Z.`);
	}
	if (hasZone) return parsed.toISOString();
	const firstGuess = parsed.getTime() - zoneOffsetMs(parsed, timeZone);
	// Re-read the offset at the guessed instant, in case a daylight-saving change lies between.
	return new Date(parsed.getTime() - zoneOffsetMs(new Date(firstGuess), timeZone)).toISOString();
}

function positionOf(context: IExecuteSingleFunctions): InputPosition {
	return { node: context.getNode(), itemIndex: context.getItemIndex() };
}

/** Reads a value at a dot path in the body the routing built. */
function readAt(body: IDataObject, path: string): unknown {
	return path.split('.').reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], body);
}

function writeAt(body: IDataObject, path: string, value: unknown): void {
	const keys = path.split('.');
	const last = keys.pop() as string;
	const parent = keys.reduce((object, key) => object[key] as IDataObject, body);
	parent[last] = value as IDataObject[string];
}

/**
 * A preSend step that checks (and converts) one body field the routing placed at `path`; fields
 * the user left out, or is clearing to null, are not there or null and are left alone.
 */
function bodyField(
	path: string,
	convert: (value: unknown, at: InputPosition, timeZone: string) => unknown,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		const value = readAt(body, path);
		if (value !== undefined && value !== null) writeAt(body, path, convert(value, positionOf(this), this.getTimezone()));
		return requestOptions;
	};
}

/**
 * Optional fields left blank are not sent: an expression that gave nothing (as `$fromAI()` does
 * for an argument the model left out) means "no value", and the service refuses empty strings.
 * To empty a field on the service, an update has Fields to Clear.
 */
export function blankFieldsLeftOut(bodyPaths: string[]): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		for (const path of bodyPaths) {
			const value = readAt(body, path);
			if (typeof value === 'string' && value.trim() === '') {
				const keys = path.split('.');
				const last = keys.pop() as string;
				const parent = keys.length > 0 ? (readAt(body, keys.join('.')) as IDataObject) : body;
				delete parent[last];
			}
		}
		return requestOptions;
	};
}

/** A date field (text, a date picker or an expression's DateTime), sent as `YYYY-MM-DD`. */
export const dateInBody = (path: string, label: string) =>
	bodyField(path, (value, at, timeZone) => checkDate(value, label, timeZone, at));

export const emailInBody = (path: string, label: string) =>
	bodyField(path, (value, at) => checkEmail(value, label, at));

/** A date field as for {@link dateInBody}; the service wants `{ day, month, year }`. */
export const birthInBody = (path: string, label: string) =>
	bodyField(path, (value, at, timeZone) => checkBirthDate(value, label, timeZone, at));

/** A multi-select, or an expression giving an array or comma-separated IDs, as an array of IDs. */
export const idListInBody = (path: string) =>
	bodyField(path, (value) =>
		(Array.isArray(value) ? value : String(value).split(','))
			.map((id) => String(id).trim())
			.filter((id) => id !== ''),
	);

/** A date-time query parameter, converted to the service's UTC form. */
export function instantInQuery(name: string, label: string): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const qs = requestOptions.qs as IDataObject;
		if (qs[name] !== undefined && qs[name] !== '') {
			qs[name] = checkInstant(qs[name], label, this.getTimezone(), positionOf(this));
		}
		return requestOptions;
	};
}

/** The nullable fields an update can clear, with the names the user sees. */
export type ClearableFields = Array<{ name: string; value: string }>;

/**
 * Completes an update body: fields chosen in "Fields to Clear" are sent as null, a field both set
 * and cleared is refused, and an update that changes nothing is refused before any request.
 */
export function clearedFieldsInBody(collection: string, clearable: ClearableFields): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const at = positionOf(this);
		const body = requestOptions.body as IDataObject;
		const cleared = (this.getNodeParameter(`${collection}.clearFields`, []) as string[]) ?? [];
		for (const field of cleared) {
			const label = clearable.find((option) => option.value === field)?.name ?? field;
			if (field in body) {
				invalid(at, `'${label}' is both set and cleared`, `Remove '${label}' from 'Update Fields', or from 'Fields to Clear'.`);
			}
			body[field] = null;
		}
		if (Object.keys(body).length === 0) {
			invalid(at, 'Nothing to update', "Add at least one field under 'Update Fields', or choose 'Fields to Clear'.");
		}
		return requestOptions;
	};
}
