import { forOperation, outputFields, pagingFields } from '../../actions/fields';
import { listRouting } from '../../actions/routing';

/** GET /organisations: all pages or up to Limit. */
export const routing = listRouting('/organisations', 'organisation');

export const description = forOperation('organisation', 'getAll', [...pagingFields, ...outputFields('organisation')]);
