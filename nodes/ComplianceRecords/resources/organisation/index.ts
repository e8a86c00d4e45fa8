import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll';

export const organisationDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['organisation'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many organisations',
				description: 'List organisations',
				routing: getAll.routing,
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
