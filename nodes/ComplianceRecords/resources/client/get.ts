import { forOperation } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { recordFields } from '../../descriptions/recordLocator';
import type { RecordParameter } from '../../helpers/records';
import { recordRouting } from '../../helpers/routing';

export const clientRecord: RecordParameter = {
	label: 'Client',
	withArticle: 'a client',
	parameter: 'clientId',
	idFieldName: 'Client ID',
	collection: 'clients',
	searchListMethod: 'searchClients',
};

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
