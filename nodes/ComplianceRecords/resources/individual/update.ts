import type { INodeProperties } from 'n8n-workflow';

import {
	byDisplayName,
	clearFieldsOption,
	forOperation,
	personOptionalFields,
	textField,
} from '../../shared/fields';
import { recordRouting } from '../../shared/routing';
import { clearedFieldsInBody, type ClearableFields } from '../../shared/validation';
import { individualIdField } from './get';

/** PATCH /individuals/{id}: only the fields given are sent. */
export const routing = recordRouting({
	method: 'PATCH',
	path: '/individuals',
	record: { label: 'Individual', idParameter: 'individualId' },
});

/** The individual fields the service lets an update set to null (spec §4.3). */
const clearable: ClearableFields = [
	{ name: 'Date of Birth', value: 'birth' },
	{ name: 'Email', value: 'email' },
	{ name: 'Middle Name', value: 'middleName' },
	{ name: 'Residential Address', value: 'residentialAddress' },
];

const properties: INodeProperties[] = [
	individualIdField,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: byDisplayName([
			clearFieldsOption(clearable),
			textField('First Name', 'firstName', 'firstName'),
			textField('Last Name', 'lastName', 'lastName'),
			...personOptionalFields(''),
		]),
		routing: { send: { preSend: [clearedFieldsInBody('updateFields', clearable)] } },
	},
];

export const description = forOperation('individual', 'update', properties);
