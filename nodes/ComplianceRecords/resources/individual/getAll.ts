import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { listRouting } from '../../helpers/lists';

export const routing = listRouting('/individuals', 'individual');

export const description = forOperation('individual', 'getAll', [
	...pagingFields,
	...outputFields('individual'),
]);
