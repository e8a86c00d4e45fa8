import { startQueue } from './environment';

export default startQueue;
