import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../descriptions/fields';
import * as get from './get';
import * as getAll from './getAll';
import * as update from './update';

export const individualDescription: INodeProperties[] = [
	operationPicker('individual', 'get', [
		{
			name: 'Get',
			value: 'get',
			action: 'Get individual',
			description:
				'Retrieve an individual (a person): name, email, address, date of birth and client',
			routing: get.routing,
		},
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many individuals',
			description: 'Retrieve a list of individuals (people), with their client where they have one',
			routing: getAll.routing,
		},
		{
			name: 'Update',
			value: 'update',
			action: 'Update individual',
			description: 'Update one or more individuals: name, email, address or date of birth',
			routing: update.routing,
		},
	]),
	...get.description,
	...update.description,
	...getAll.description,
];
