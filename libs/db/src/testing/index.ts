/**
 * For tests that prove each migration's `down` undoes its `up`: rolling a schema's migrations all the way
 * back. Services only ever migrate forwards.
 */
export { rollbackAll } from '../migrate.js';
