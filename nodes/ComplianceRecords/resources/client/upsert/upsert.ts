import type { INodeProperties } from 'n8n-workflow';

import { forOperation, textField } from '../../../descriptions/fields';
import { outputFields } from '../../../descriptions/outputFields';
import { paginationRouting } from '../../../helpers/routing';
import { additionalClientFields, newClientFields } from '../create';
import { createOrUpdate, REFERENCE_NUMBER } from './createOrUpdate';

export const routing = paginationRouting({ method: 'POST', url: '/clients' }, createOrUpdate);

const [status, ...entityFields] = newClientFields({
	statusDescription:
		"The status of a new client (Prospect unless set). An existing client keeps its own unless 'Update Status' is on.",
	entityHint:
		'Used only when a new client is created: an existing client keeps its entity, which an update cannot change',
});

const properties: INodeProperties[] = [
	textField(REFERENCE_NUMBER, 'referenceNumber', 'referenceNumber', {
		required: true,
		placeholder: 'e.g. HF-000042',
		description:
			"The firm's own reference for the client, unique within the firm: the client that has it is updated; if none has it, a new client is created with it",
	}),
	status,
	{
		displayName: 'Update Status',
		name: 'updateStatus',
		type: 'boolean',
		default: false,
		description: "Whether an existing client's status is set to 'Status' too",
	},
	...entityFields,
	additionalClientFields(['referenceNumber']),
	...outputFields('client'),
];

export const description = forOperation('client', 'upsert', properties);
