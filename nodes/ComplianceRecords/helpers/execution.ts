import type { IExecuteSingleFunctions } from 'n8n-workflow';

import { Pacer } from '../transport/pacing';

/**
 * What every item of one execution shares, computed once (items run concurrently, so the first
 * computes and the others await the same promise). It is kept in n8n's per-execution node
 * context, not enumerable so that n8n never saves it with the execution; a failure is not kept.
 */
export function sharedInExecution<T>(context: IExecuteSingleFunctions, key: string, compute: () => Promise<T>): Promise<T> {
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
