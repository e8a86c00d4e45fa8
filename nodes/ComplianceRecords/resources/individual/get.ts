import { forOperation, outputFields, recordIdField } from '../../actions/fields';
import { recordRouting } from '../../actions/routing';

/** The individual an operation is about: named in "not found" errors. */
export const individualRecord = { label: 'Individual', parameter: 'individualId', displayName: 'Individual ID' };

/** GET /individuals/{id}. */
export const routing = recordRouting({
	method: 'GET',
	path: '/individuals',
	record: individualRecord,
	kind: 'individual',
});

export const individualIdField = recordIdField(
	'Individual ID',
	'individualId',
	"The individual's ID; for a client of category Individual, the client's entity ID",
);

export const description = forOperation('individual', 'get', [individualIdField, ...outputFields('individual')]);
