import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../descriptions/fields';
import * as create from './create';
import * as get from './get';
import * as getAll from './getAll';
import * as update from './update';
import * as upsert from './upsert/upsert';

export const clientDescription: INodeProperties[] = [
	operationPicker('client', 'get', [
		{
			name: 'Create',
			value: 'create',
			action: 'Create client',
			description: 'Create a new client with its individual, sole trader or organisation',
			routing: create.routing,
		},
		{
			name: 'Create or Update',
			value: 'upsert',
			action: 'Create or update client',
			description: 'Create a new client, or update the current one if it already exists (upsert)',
			routing: upsert.routing,
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get client',
			description: 'Retrieve a client with its entity, staff and services',
			routing: get.routing,
		},
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many clients',
			description:
				'Retrieve a list of clients: all of them, those changed since a time, or those due for review',
			routing: getAll.routing,
		},
		{
			name: 'Update',
			value: 'update',
			action: 'Update client',
			description:
				'Update one or more clients: status, staff, services, reference number or review date',
			routing: update.routing,
		},
	]),
	...create.description,
	...upsert.description,
	...get.description,
	...update.description,
	...getAll.description,
];
