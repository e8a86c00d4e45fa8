import { stopQueue } from './environment';

export default stopQueue;
