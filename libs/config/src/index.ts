export { readConfig } from './read-config.js';
export * as field from './config-fields.js';
export { loadConfigOrExit } from './load-config-or-exit.js';
export { serviceProcessFields, type ServiceProcessConfig } from './service-process-fields.js';
