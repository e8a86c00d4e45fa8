import type { IExecuteSingleFunctions } from 'n8n-workflow';

import { Pacer } from '../transport/pacing';

/**
 * Computed once for the items of an execution, which run concurrently; kept in n8n's node context
 * not enumerable, so n8n never saves it; a failure is not kept.
 */
export function sharedInExecution<T>(
	context: IExecuteSingleFunctions,
	key: string,
	compute: () => Promise<T>,
): Promise<T> {
	const store = context.getContext('node');
	const held = store[key] as Promise<T> | undefined;
	if (held) return held;
	const computed = compute();
	Object.defineProperty(store, key, { value: computed, enumerable: false, configurable: true });
	computed.catch(() => delete store[key]);
	return computed;
}

/** The pace of this execution's requests, shared by its items (transport/pacing.ts). */
export const executionPacer = (context: IExecuteSingleFunctions): Promise<Pacer> =>
	sharedInExecution(context, 'requestPacer', async () => new Pacer());
