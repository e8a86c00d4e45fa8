import { forOperation } from '../../descriptions/fields';
import { outputFields } from '../../descriptions/outputFields';
import { recordRouting } from '../../helpers/routing';

export const routing = recordRouting({ path: '/firm', kind: 'firm' });

export const description = forOperation('firm', 'get', outputFields('firm'));
