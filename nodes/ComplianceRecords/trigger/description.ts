import type { INodeProperties } from 'n8n-workflow';

import { simplify } from '../descriptions/outputFields';
import { REVIEW_DUE_WITHIN } from '../helpers/dates';

/** The trigger's parameters after 'Authentication' (n8n adds Poll Times itself to a polling node). */
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
					'A client was created, or it, its person or organisation, or its AML determination changed. Each change starts the workflow once, with the client as it is now; changes made before the workflow was activated do not.',
			},
			{
				name: 'Review Due',
				value: 'reviewDue',
				action: 'On review due',
				description:
					"A client's next review date comes within the set number of days: once when the date comes within them, and again only if the date changes",
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
			"Start the workflow for a client when its next review date is from today to this many days ahead, today in the workflow's time zone. Dates already past, and clients already due when the workflow is activated, do not start it; a client given a date within the days does. Changing this value starts over as on activation.",
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
					'Whether to read each client in full (partner, manager, business unit, services, person or organisation) rather than as the client list shows it; Simplify then keeps its partner and manager by name. Costs one request more per client.',
			},
		],
	},
];
