import { forOperation, outputFields, pagingFields } from '../../actions/fields';
import { listRouting } from '../../actions/routing';

/** GET /individuals: all pages or up to Limit. */
export const routing = listRouting('/individuals', 'individual');

export const description = forOperation('individual', 'getAll', [...pagingFields, ...outputFields('individual')]);
