import { startEnvironment } from './environment';

export default startEnvironment;
