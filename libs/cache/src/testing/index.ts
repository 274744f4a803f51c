/** For tests: the parser of the three HTTP date forms, which production reaches only through `isNotModified`. */
export { parseHttpDate } from '../http-date.js';
