export { startEmbeddedSystem, type RunningSystem } from './app.js';
export { loadStandaloneConfig, type StandaloneConfig } from './config.js';
export { SERVICE_DEFINITIONS, type ServiceDefinitionName } from './service-definitions.js';
