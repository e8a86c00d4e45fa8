import type { INodeProperties } from 'n8n-workflow';

import { operationPicker } from '../../descriptions/fields';
import * as get from './get';

export const firmDescription: INodeProperties[] = [
	operationPicker('firm', 'get', [
		{
			name: 'Get',
			value: 'get',
			action: 'Get firm',
			description: "Retrieve the credential's firm: its services, business units, staff and MLRO",
			routing: get.routing,
		},
	]),
	...get.description,
];
