import type { INodeProperties } from 'n8n-workflow';

import { forOperation } from '../../shared/fields';
import { recordRouting } from '../../shared/routing';

/** GET /individuals/{id}. */
export const routing = recordRouting({
	method: 'GET',
	path: '/individuals',
	record: { label: 'Individual', idParameter: 'individualId' },
});

export const individualIdField: INodeProperties = {
	displayName: 'Individual ID',
	name: 'individualId',
	type: 'string',
	required: true,
	default: '',
	description: "The individual's ID in the service (a client's entity ID when its category is Individual)",
};

export const description = forOperation('individual', 'get', [individualIdField]);
