import { startLines } from './environment';

export default startLines;
