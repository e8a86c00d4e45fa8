import type { INodeProperties } from 'n8n-workflow';

import { forOperation } from '../../shared/fields';
import { recordRouting } from '../../shared/routing';

/** GET /clients/{id}: the full client, with its entity, assignments and services. */
export const routing = recordRouting({
	method: 'GET',
	path: '/clients',
	record: { label: 'Client', idParameter: 'clientId' },
});

export const clientIdField: INodeProperties = {
	displayName: 'Client ID',
	name: 'clientId',
	type: 'string',
	required: true,
	default: '',
	description: "The client's ID in the service",
};

export const description = forOperation('client', 'get', [clientIdField]);
