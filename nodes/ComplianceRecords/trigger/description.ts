import type { INodeProperties } from 'n8n-workflow';

import { simplify } from '../descriptions/outputFields';
import { REVIEW_DUE_WITHIN } from '../helpers/dates';

/** After 'Authentication'; n8n adds Poll Times itself to a polling node. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Trigger On',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'AML Determination Completed',
				value: 'amlDeterminationCompleted',
				action: 'On AML determination completed',
				description:
					"A client's AML determination was completed. Each determination starts the workflow once, with its risk level.",
			},
			{
				name: 'Client Created or Modified',
				value: 'clientModified',
				action: 'On client created or modified',
				description:
					'A client was created, or it, its entity or its AML determination changed. Each change starts the workflow once, with the client as it is now; changes made before the workflow was activated do not.',
			},
			{
				name: 'Review Due',
				value: 'reviewDue',
				action: 'On review due',
				description:
					"A client's next review date comes within 'Review Due Within (Days)'. Each client starts the workflow once, and again if its date changes.",
			},
		],
		default: 'clientModified',
	},
	{
		displayName: REVIEW_DUE_WITHIN,
		name: 'days',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 30,
		description:
			"How many days ahead of today to look, today being in the workflow's time zone; 0 is today only. Clients already due when the workflow is activated, or when this changes, do not start it.",
		displayOptions: { show: { event: ['reviewDue'] } },
	},
	// Version 1 (0.1.0) emits the service's records.
	{ ...simplify, displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } } },
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
					"Whether to read each client in full (partner, manager, business unit, services, entity) rather than as the client list shows it; 'Simplify' then adds its partner and manager by name. Costs one request more per client.",
			},
		],
	},
];
