import { stopLines } from './environment';

export default stopLines;
