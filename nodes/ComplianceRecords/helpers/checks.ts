import type { INode } from 'n8n-workflow';

import { itemError } from '../transport/errors';

export interface InputPosition {
	node: INode;
	itemIndex: number;
}

export function invalid(at: InputPosition, message: string, description: string): never {
	throw itemError(at.node, at.itemIndex, message, description);
}

export function trimmedText(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
}

export function checkRequired(value: unknown, label: string, at: InputPosition): string {
	const given = trimmedText(value);
	if (!given) {
		invalid(
			at,
			`'${label}' is empty`,
			`Enter a value in '${label}', or map one from an earlier node with an expression.`,
		);
	}
	return given;
}

export function checkId(value: unknown, label: string, at: InputPosition): string {
	const id = checkRequired(value, label, at);
	// Dot segments would be resolved by the URL parser even when encoded: no record has them.
	if (id === '.' || id === '..')
		invalid(at, `'${label}' "${id}" is not a valid ID`, `Enter the record's ID in '${label}'.`);
	return id;
}

/** n8n-core hands items on in one spread call, which overflows: docs/benchmarks.md. */
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

export function checkEmail(value: unknown, label: string, at: InputPosition): string {
	const email = trimmedText(value);
	if (!/^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email)) {
		invalid(
			at,
			`'${label}' is not a valid email address`,
			`Got "${email}". Enter an address such as jane.doe@example.com.`,
		);
	}
	return email;
}
