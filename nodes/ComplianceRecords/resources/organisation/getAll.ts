import { forOperation, pagingFields } from '../../shared/fields';
import { listRouting } from '../../shared/routing';

/** GET /organisations: all pages or up to Limit. */
export const routing = listRouting('/organisations');

export const description = forOperation('organisation', 'getAll', pagingFields);
