import { forOperation } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { recordFields } from '../../descriptions/recordLocator';
import type { RecordParameter } from '../../helpers/records';
import { recordRouting } from '../../helpers/routing';

/** The client an operation is about, picked by the user and named in errors. */
export const clientRecord: RecordParameter = {
	label: 'Client',
	withArticle: 'a client',
	parameter: 'clientId',
	idFieldName: 'Client ID',
	collection: 'clients',
	searchListMethod: 'searchClients',
};

/** GET /clients/{id}: the full client, with its entity, assignments and services. */
export const routing = recordRouting({
	path: '/clients',
	record: clientRecord,
	kind: 'client',
});

export const clientFields = recordFields(
	clientRecord,
	"The client's ID, as in the ID field of Get Many or Create output",
);

export const description = forOperation('client', 'get', [
	...clientFields,
	...outputFields('client'),
]);
