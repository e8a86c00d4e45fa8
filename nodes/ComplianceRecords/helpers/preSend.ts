import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	PreSendAction,
} from 'n8n-workflow';

import { checkEmail, type InputPosition, invalid } from './checks';
import { checkBirthDate, checkDate, checkInstant } from './dates';

function positionOf(context: IExecuteSingleFunctions): InputPosition {
	return { node: context.getNode(), itemIndex: context.getItemIndex() };
}

function readAt(body: IDataObject, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((value, key) => (value as IDataObject | undefined)?.[key], body);
}

function writeAt(body: IDataObject, path: string, value: unknown): void {
	const keys = path.split('.');
	const last = keys.pop() as string;
	const parent = keys.reduce((object, key) => object[key] as IDataObject, body);
	parent[last] = value as IDataObject[string];
}

/** A field left out, or cleared to null, is left alone. */
function bodyField(
	path: string,
	convert: (value: unknown, at: InputPosition, timeZone: string) => unknown,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		const value = readAt(body, path);
		if (value !== undefined && value !== null)
			writeAt(body, path, convert(value, positionOf(this), this.getTimezone()));
		return requestOptions;
	};
}

/** Blank is not given, as `$fromAI()` gives an argument left out; with `orEmpty`, null and `[]`. */
export function blankFieldsLeftOut(bodyPaths: string[], { orEmpty = false } = {}): PreSendAction {
	const isBlank = (value: unknown) =>
		(typeof value === 'string' && value.trim() === '') ||
		(orEmpty && (value === null || (Array.isArray(value) && value.length === 0)));
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const body = requestOptions.body as IDataObject;
		for (const path of bodyPaths) {
			if (isBlank(readAt(body, path))) {
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
	bodyField(path, (value, at, timeZone) => checkDate(value, label, timeZone, at));

export const emailInBody = (path: string, label: string) =>
	bodyField(path, (value, at) => checkEmail(value, label, at));

export const birthInBody = (path: string, label: string) =>
	bodyField(path, (value, at, timeZone) => checkBirthDate(value, label, timeZone, at));

/** A multi-select, or an expression giving an array or comma-separated IDs. */
export const idListInBody = (path: string) =>
	bodyField(path, (value) =>
		(Array.isArray(value) ? value : String(value).split(','))
			.map((id) => String(id).trim())
			.filter((id) => id !== ''),
	);

export function instantInQuery(name: string, label: string): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const qs = requestOptions.qs as IDataObject;
		if (qs[name] !== undefined && qs[name] !== '') {
			qs[name] = checkInstant(qs[name], label, this.getTimezone(), positionOf(this));
		}
		return requestOptions;
	};
}

export type ClearableFields = Array<{ name: string; value: string }>;

/** A field both set and cleared, or an update of nothing, is refused before any request. */
export function clearedFieldsInBody(collection: string, clearable: ClearableFields): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const at = positionOf(this);
		const body = requestOptions.body as IDataObject;
		const cleared = (this.getNodeParameter(`${collection}.clearFields`, []) as string[]) ?? [];
		for (const field of cleared) {
			const label = clearable.find((option) => option.value === field)?.name ?? field;
			if (field in body) {
				invalid(
					at,
					`'${label}' is both set and cleared`,
					`Remove '${label}' from 'Update Fields', or from 'Fields to Clear'.`,
				);
			}
			body[field] = null;
		}
		if (Object.keys(body).length === 0) {
			invalid(
				at,
				'Nothing to update',
				"Add at least one field under 'Update Fields', or choose 'Fields to Clear'.",
			);
		}
		return requestOptions;
	};
}
