import { forOperation, recordIdField, simplifyField } from '../../actions/fields';
import { recordRouting } from '../../actions/routing';

/** The individual an operation is about: named in "not found" errors. */
export const individualRecord = { label: 'Individual', idParameter: 'individualId' };

/** GET /individuals/{id}. */
export const routing = recordRouting({
	method: 'GET',
	path: '/individuals',
	record: individualRecord,
	simplify: 'individual',
});

export const individualIdField = recordIdField(
	'Individual ID',
	'individualId',
	"The individual's ID; for a client of category Individual, the client's entity ID",
);

export const description = forOperation('individual', 'get', [individualIdField, simplifyField]);
