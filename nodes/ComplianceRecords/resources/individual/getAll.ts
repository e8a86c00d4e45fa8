import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { listRouting } from '../../helpers/lists';

/** GET /individuals: all pages or up to Limit. */
export const routing = listRouting('/individuals', 'individual');

export const description = forOperation('individual', 'getAll', [
	...pagingFields,
	...outputFields('individual'),
]);
