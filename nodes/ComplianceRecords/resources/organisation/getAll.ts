import { forOperation, pagingFields } from '../../actions/fields';
import { listRouting } from '../../actions/routing';

/** GET /organisations: all pages or up to Limit. */
export const routing = listRouting('/organisations');

export const description = forOperation('organisation', 'getAll', pagingFields);
