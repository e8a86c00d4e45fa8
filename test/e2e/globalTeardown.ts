import { stopEnvironment } from './environment';

export default stopEnvironment;
