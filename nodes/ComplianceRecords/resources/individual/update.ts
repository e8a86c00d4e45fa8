import {
	forOperation,
	personOptionalFields,
	textField,
	updateFieldsCollection,
} from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import type { ClearableFields } from '../../helpers/preSend';
import { recordRouting } from '../../helpers/routing';
import { individualFields, individualRecord } from './get';

/** PATCH /individuals/{id}: only the fields given are sent. */
export const routing = recordRouting({
	method: 'PATCH',
	path: '/individuals',
	record: individualRecord,
	kind: 'individual',
});

/** The individual fields the service lets an update set to null. */
const clearable: ClearableFields = [
	{ name: 'Date of Birth', value: 'birth' },
	{ name: 'Email', value: 'email' },
	{ name: 'Middle Name', value: 'middleName' },
	{ name: 'Residential Address', value: 'residentialAddress' },
];

export const description = forOperation('individual', 'update', [
	...individualFields,
	updateFieldsCollection(
		[
			textField('First Name', 'firstName', 'firstName'),
			textField('Last Name', 'lastName', 'lastName'),
			...personOptionalFields(''),
		],
		clearable,
	),
	...outputFields('individual'),
]);
