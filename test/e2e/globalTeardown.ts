import { suite } from './environment';

export default suite.stop;
