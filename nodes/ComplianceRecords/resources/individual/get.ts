import { forOperation } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { recordFields } from '../../descriptions/recordLocator';
import type { RecordParameter } from '../../helpers/records';
import { recordRouting } from '../../helpers/routing';

export const individualRecord: RecordParameter = {
	label: 'Individual',
	withArticle: 'an individual',
	parameter: 'individualId',
	idFieldName: 'Individual ID',
	collection: 'individuals',
	searchListMethod: 'searchIndividuals',
};

export const routing = recordRouting({
	path: '/individuals',
	record: individualRecord,
	kind: 'individual',
});

export const individualFields = recordFields(
	individualRecord,
	"The individual's ID; for a client whose entity type is Individual, the ID of its entity",
);

export const description = forOperation('individual', 'get', [
	...individualFields,
	...outputFields('individual'),
]);
