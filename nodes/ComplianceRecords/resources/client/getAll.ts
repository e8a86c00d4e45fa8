import type { INodeProperties } from 'n8n-workflow';

import { forOperation, pagingFields } from '../../actions/fields';
import { listRouting } from '../../actions/routing';
import { instantInQuery } from '../../actions/validation';

/** GET /clients: list items (entity reference only), all pages or up to Limit. */
export const routing = listRouting('/clients');

const properties: INodeProperties[] = [
	...pagingFields,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Modified Since',
				name: 'sinceModifiedAt',
				type: 'dateTime',
				default: '',
				description:
					'Only clients changed at or after this time (the client, its entity or its AML determination)',
				routing: {
					send: {
						type: 'query',
						property: 'sinceModifiedAt',
						preSend: [instantInQuery('sinceModifiedAt', 'Modified Since')],
					},
				},
			},
		],
	},
];

export const description = forOperation('client', 'getAll', properties);
