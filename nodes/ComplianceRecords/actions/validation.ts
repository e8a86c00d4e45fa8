import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INode,
	PreSendAction,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Checks that run before any request is sent, so a mistake in the node's fields is reported with
 * the field's name instead of reaching the service. Each check throws or returns the value in
 * the form the service wants.
 */

/** Where a value came from, for the error: the node and the input item. */
export interface InputPosition {
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
 * spread call, which overflows the stack at about 120,000 (measured: docs/large-firms.md).
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

function isRealDate(year: number, month: number, day: number): boolean {
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

/** A calendar date as `YYYY-MM-DD`, the only date form the service accepts. */
export function checkDate(value: unknown, label: string, at: InputPosition): string {
	const date = text(value);
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
	if (!match) {
		invalid(at, `'${label}' must be a date in the form YYYY-MM-DD`, `Got "${date}". Example: 2026-03-31.`);
	}
	if (!isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
		invalid(at, `'${label}' is not a real date`, `"${date}" does not exist in the calendar.`);
	}
	return date;
}

/** A date of birth: the service needs day, month and year together. */
export function checkBirthDate(
	value: unknown,
	label: string,
	at: InputPosition,
): { day: number; month: number; year: number } {
	const date = text(value);
	if (/^\d{4}(-\d{1,2})?$/.test(date)) {
		invalid(at, `'${label}' is incomplete`, `The service needs day, month and year together; got "${date}". Example: 1984-07-21.`);
	}
	const [year, month, day] = checkDate(date, label, at).split('-').map(Number);
	return { day, month, year };
}

export function checkEmail(value: unknown, label: string, at: InputPosition): string {
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
export function checkInstant(
	value: unknown,
	label: string,
	timeZone: string,
	at: InputPosition,
): string {
	const given =
		value && typeof value === 'object' && 'toISO' in value
			? String((value as { toISO: () => string }).toISO())
			: text(value);
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
function bodyField(path: string, convert: (value: unknown, at: InputPosition) => unknown): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		const value = readAt(body, path);
		if (value !== undefined && value !== null) writeAt(body, path, convert(value, positionOf(this)));
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

export const dateInBody = (path: string, label: string) =>
	bodyField(path, (value, at) => checkDate(value, label, at));

export const emailInBody = (path: string, label: string) =>
	bodyField(path, (value, at) => checkEmail(value, label, at));

/** The field is a `YYYY-MM-DD` string in n8n; the service wants `{ day, month, year }`. */
export const birthInBody = (path: string, label: string) =>
	bodyField(path, (value, at) => checkBirthDate(value, label, at));

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
