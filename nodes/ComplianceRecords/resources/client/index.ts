import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../actions/fields';
import * as create from './create';
import * as get from './get';
import * as getAll from './getAll';
import * as update from './update';
import * as upsert from './upsert';

export const clientDescription: INodeProperties[] = [
	operationPicker('client', 'get', [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a client for a person or company',
			description: 'Create a client with its individual, sole trader or organisation',
			routing: create.routing,
		},
		{
			name: 'Create or Update',
			value: 'upsert',
			action: 'Create or update client by reference number',
			description: 'Create a new client, or update the current one if it already exists (upsert)',
			routing: upsert.routing,
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get a client by ID',
			description: 'Get a client with its entity, staff and services',
			routing: get.routing,
		},
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many clients by review or change date',
			description: 'List clients: all, those modified since a time, or those whose review is due within N days',
			routing: getAll.routing,
		},
		{
			name: 'Update',
			value: 'update',
			action: "Update a client's status, staff or review date",
			description: "Change a client's status, staff, services, reference or review date",
			routing: update.routing,
		},
	]),
	...create.description,
	...upsert.description,
	...get.description,
	...update.description,
	...getAll.description,
];
