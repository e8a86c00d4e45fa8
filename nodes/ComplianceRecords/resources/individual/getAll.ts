import { forOperation, pagingFields } from '../../shared/fields';
import { listRouting } from '../../shared/routing';

/** GET /individuals: all pages or up to Limit. */
export const routing = listRouting('/individuals');

export const description = forOperation('individual', 'getAll', pagingFields);
