import { forOperation, outputFields, recordIdField } from '../../actions/fields';
import { recordRouting } from '../../actions/routing';

/** The client an operation is about: named in "not found" errors. */
export const clientRecord = { label: 'Client', parameter: 'clientId', displayName: 'Client ID' };

/** GET /clients/{id}: the full client, with its entity, assignments and services. */
export const routing = recordRouting({ method: 'GET', path: '/clients', record: clientRecord, kind: 'client' });

export const clientIdField = recordIdField(
	'Client ID',
	'clientId',
	"The client's ID, as in the ID field of Get Many or Create output",
);

export const description = forOperation('client', 'get', [clientIdField, ...outputFields('client')]);
