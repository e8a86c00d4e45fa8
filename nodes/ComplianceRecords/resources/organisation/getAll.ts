import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { listRouting } from '../../helpers/lists';

export const routing = listRouting('/organisations', 'organisation');

export const description = forOperation('organisation', 'getAll', [
	...pagingFields,
	...outputFields('organisation'),
]);
