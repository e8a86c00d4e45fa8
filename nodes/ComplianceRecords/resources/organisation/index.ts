import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../descriptions/fields';
import * as getAll from './getAll';

export const organisationDescription: INodeProperties[] = [
	operationPicker('organisation', 'getAll', [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many organisations',
			description: 'Retrieve a list of organisations: companies, non-profits, trusts and others',
			routing: getAll.routing,
		},
	]),
	...getAll.description,
];
