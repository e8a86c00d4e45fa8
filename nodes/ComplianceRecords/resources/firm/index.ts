import type { INodeProperties } from 'n8n-workflow';

import * as get from './get';

export const firmDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['firm'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get the firm',
				description: "Get the credential's firm: services, business units, staff and MLRO",
				routing: get.routing,
			},
		],
		default: 'get',
	},
];
