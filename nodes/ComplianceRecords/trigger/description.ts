import type { INodeProperties } from 'n8n-workflow';

import { authenticationProperty } from '../authentication';
import { outputParameter, selectedFieldsParameter } from '../output';

/** The trigger's parameters (n8n adds Poll Times itself to a polling node). */
export const triggerProperties: INodeProperties[] = [
	authenticationProperty,
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Client Created or Modified',
				value: 'clientModified',
				action: 'On client created or modified',
				description:
					'A client was created, or its record, entity or AML determination changed. Each change is emitted once, in the client’s latest state; changes made before the workflow was activated are not.',
			},
			{
				name: 'AML Determination Completed',
				value: 'amlDeterminationCompleted',
				action: 'On AML determination completed',
				description:
					'A client’s AML determination was completed (lastAmlDetermination.completedAt moved). Each determination is emitted once, with its risk level in lastAmlDetermination.riskLevel.',
			},
			{
				name: 'Review Due',
				value: 'reviewDue',
				action: 'On review due',
				description:
					'A client’s next review date comes within the set number of days. Emitted once when the date enters the window, and again only if the date changes. The first poll of each day checks the whole firm; other polls check only modified clients.',
			},
		],
		default: 'clientModified',
	},
	{
		displayName: 'Days Ahead',
		name: 'days',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 30,
		description:
			'Emit a client when its next review date is between today and this many days from today (both included), in the workflow’s time zone. Dates already past are not emitted. Clients already inside the window when the workflow is activated are not emitted; a client changed to a date inside the window is. Changing this value starts over as on activation.',
		displayOptions: { show: { event: ['reviewDue'] } },
	},
	// Version 1 emitted the service's records: its workflows keep them unless they choose otherwise.
	outputParameter('raw', { show: { '@version': [1] } }),
	outputParameter('simple', { show: { '@version': [{ _cnd: { gte: 1.1 } }] } }),
	selectedFieldsParameter(
		'client',
		{},
		"Partner, Manager, Business Unit, Services, Created At and Updated At come only with 'Fetch Full Client' on",
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Fetch Full Client',
				name: 'fetchFullClient',
				type: 'boolean',
				default: false,
				description:
					'Whether to output the full client (partner, manager, business unit, services, entity) instead of the list item. Costs one extra request per emitted client.',
			},
		],
	},
];
