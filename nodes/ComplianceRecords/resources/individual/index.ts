import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../actions/fields';
import * as get from './get';
import * as getAll from './getAll';
import * as update from './update';

export const individualDescription: INodeProperties[] = [
	operationPicker('individual', 'get', [
		{
			name: 'Get',
			value: 'get',
			action: 'Get an individual (person) by ID',
			description: 'Get a person: name, email, address, date of birth and client link',
			routing: get.routing,
		},
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many individuals (people)',
			description: 'List individuals',
			routing: getAll.routing,
		},
		{
			name: 'Update',
			value: 'update',
			action: "Update an individual's name, email or address",
			description: "Change a person's name, email, address or date of birth",
			routing: update.routing,
		},
	]),
	...get.description,
	...update.description,
	...getAll.description,
];
