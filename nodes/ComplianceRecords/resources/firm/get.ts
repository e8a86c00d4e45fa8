import { forOperation } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { recordRouting } from '../../helpers/routing';

/** GET /firm: the credential's firm with its services, business units and staff. */
export const routing = recordRouting({ path: '/firm', kind: 'firm' });

export const description = forOperation('firm', 'get', outputFields('firm'));
