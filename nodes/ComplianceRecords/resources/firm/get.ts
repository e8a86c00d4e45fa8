import { forOperation, outputFields } from '../../actions/fields';
import { recordRouting } from '../../actions/routing';

/** GET /firm: the credential's firm with its services, business units and staff. */
export const routing = recordRouting({ method: 'GET', path: '/firm', kind: 'firm' });

export const description = forOperation('firm', 'get', outputFields('firm'));
