import type { IDataObject } from 'n8n-workflow';

/** A JSON object (not null, not a list): what a record, a reference or an error body must be to be read. */
export const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A header of an answer, whatever the case of its name. */
export function headerOf(headers: IDataObject | undefined, name: string): unknown {
	const key = Object.keys(headers ?? {}).find((candidate) => candidate.toLowerCase() === name);
	return key === undefined ? undefined : headers?.[key];
}
