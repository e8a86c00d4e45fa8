import type { INodeProperties } from 'n8n-workflow';

import {
	clientAssignmentFields,
	forOperation,
	updateFieldsCollection,
} from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import type { ClearableFields } from '../../helpers/preSend';
import { writeRouting } from '../../helpers/writes';
import { clientWording } from './create';
import { clientFields, clientRecord } from './get';
import { clientReadBack } from './writes';

export const routing = writeRouting({
	method: 'PATCH',
	path: '/clients',
	record: clientRecord,
	kind: 'client',
	wording: clientWording,
	readBack: clientReadBack,
});

/** The fields the service lets an update set to null. */
const clearable: ClearableFields = [
	{ name: 'Business Unit', value: 'businessUnitId' },
	{ name: 'Manager', value: 'managerId' },
	{ name: 'Next Review Date', value: 'nextReviewDate' },
	{ name: 'Partner', value: 'partnerId' },
	{ name: 'Reference Number', value: 'referenceNumber' },
];

const properties: INodeProperties[] = [
	...clientFields,
	updateFieldsCollection(
		[
			...clientAssignmentFields('updateFields'),
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'EXISTING',
				options: [
					{ name: 'Existing', value: 'EXISTING' },
					{ name: 'Prospect', value: 'PROSPECT' },
				],
				routing: { send: { type: 'body', property: 'status' } },
			},
		],
		clearable,
	),
	...outputFields('client'),
];

export const description = forOperation('client', 'update', properties);
