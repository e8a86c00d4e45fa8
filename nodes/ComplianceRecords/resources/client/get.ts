import { forOperation, recordIdField } from '../../actions/fields';
import { recordRouting } from '../../actions/routing';

/** The client an operation is about: named in "not found" errors. */
export const clientRecord = { label: 'Client', idParameter: 'clientId' };

/** GET /clients/{id}: the full client, with its entity, assignments and services. */
export const routing = recordRouting({ method: 'GET', path: '/clients', record: clientRecord });

export const clientIdField = recordIdField('Client ID', 'clientId', "The client's ID in the service");

export const description = forOperation('client', 'get', [clientIdField]);
