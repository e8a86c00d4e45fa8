import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { LoggedRequest } from 'compliance-records-sandbox';

import { lastNameOf } from './serviceApi';

/* A bulk Client > Create: its input, its parameters, and how often each client was created. */

let batch = 0;
/** Input items naming `count` new clients by a last name that says which, and each a new reference number if asked. */
export function newClients(count: number, { withReference = false } = {}): IDataObject[] {
	batch++;
	return Array.from({ length: count }, (_, index) => ({
		lastName: `Batch ${batch} no. ${index}`,
		...(withReference && { reference: `BATCH-${batch}-${index}` }),
	}));
}

/** Client > Create of an individual named by each input item's `lastName`. */
export const createEachClient: INodeParameters = {
	resource: 'client',
	operation: 'create',
	status: 'PROSPECT',
	entityType: 'individual',
	firstName: 'Ada',
	lastName: '={{ $json.lastName }}',
};

export const postsIn = (requests: LoggedRequest[]) =>
	requests.filter((request) => request.method === 'POST');

/** How often each client was created (answered 201), by last name. */
export function createdCounts(requests: LoggedRequest[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of postsIn(requests).filter((post) => post.status === 201))
		counts.set(lastNameOf(request), (counts.get(lastNameOf(request)) ?? 0) + 1);
	return counts;
}
