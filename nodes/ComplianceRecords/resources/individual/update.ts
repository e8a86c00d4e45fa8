import {
	forOperation,
	personOptionalFields,
	textField,
	updateFieldsCollection,
} from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import type { ClearableFields } from '../../helpers/preSend';
import { sameValue, writeRouting } from '../../helpers/writes';
import { individualFields, individualRecord } from './get';

export const routing = writeRouting({
	method: 'PATCH',
	path: '/individuals',
	record: individualRecord,
	kind: 'individual',
	readBack: {
		// An individual names its fields as an update does.
		shows: (sent, individual) =>
			Object.entries(sent).every(([field, value]) => sameValue(individual[field], value)),
		changedAt: (individual) => Date.parse(String(individual.updatedAt)),
	},
});

/** The fields the service lets an update set to null. */
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
