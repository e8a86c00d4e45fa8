import type { IExecuteSingleFunctions } from 'n8n-workflow';

import { Pacer } from '../transport/pacing';

/** Not enumerable in n8n's node context: never saved with the execution. A failure is not kept. */
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

export const executionPacer = (context: IExecuteSingleFunctions): Promise<Pacer> =>
	sharedInExecution(context, 'requestPacer', async () => new Pacer());
