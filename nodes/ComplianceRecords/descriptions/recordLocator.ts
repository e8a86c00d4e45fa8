import type { INodeProperties } from 'n8n-workflow';

import { PICKER_VERSION, type RecordParameter, recordUrlPattern } from '../helpers/records';

/** The record's parameter: version 1's ID field, then a picker (From List first, By URL, By ID). */
export function recordFields(record: RecordParameter, idDescription: string): INodeProperties[] {
	const urlPattern = recordUrlPattern(record);
	return [
		{
			displayName: record.idFieldName,
			name: record.parameter,
			type: 'string',
			required: true,
			default: '',
			description: idDescription,
			displayOptions: { show: { '@version': [{ _cnd: { lt: PICKER_VERSION } }] } },
		},
		{
			displayName: record.label,
			name: record.parameter,
			type: 'resourceLocator',
			required: true,
			default: { mode: 'list', value: '' },
			description: `'From list': the firm's ${record.collection} by name; type to search, scroll down for more. 'By URL': the address of the ${record.label.toLowerCase()}'s page in the service. 'By ID': its ID.`,
			displayOptions: { show: { '@version': [{ _cnd: { gte: PICKER_VERSION } }] } },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					placeholder: `Select ${record.withArticle}...`,
					typeOptions: { searchListMethod: record.searchListMethod, searchable: true },
				},
				{
					displayName: 'By URL',
					name: 'url',
					type: 'string',
					placeholder: `e.g. https://app.example.com/${record.collection}/0f8e2b1c-...`,
					validation: [
						{
							type: 'regex',
							properties: {
								regex: urlPattern,
								errorMessage: `Not the URL of ${record.withArticle}: paste one that ends in /${record.collection}/ followed by the ID`,
							},
						},
					],
					// For n8n, when an expression refers to this parameter; the node reads the URL itself.
					extractValue: { type: 'regex', regex: urlPattern },
				},
				{
					displayName: 'By ID',
					name: 'id',
					type: 'string',
					placeholder: 'e.g. 0f8e2b1c-6a7d-4e5f-9b3a-2c1d0e4f5a6b',
				},
			],
		},
	];
}
