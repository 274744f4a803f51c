export { readConfig, ConfigError } from './read-config.js';
export * as field from './config-fields.js';
