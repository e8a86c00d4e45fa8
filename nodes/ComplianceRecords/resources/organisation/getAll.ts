import { forOperation, pagingFields } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { listRouting } from '../../helpers/lists';

/** GET /organisations: all pages or up to Limit. */
export const routing = listRouting('/organisations', 'organisation');

export const description = forOperation('organisation', 'getAll', [
	...pagingFields,
	...outputFields('organisation'),
]);
