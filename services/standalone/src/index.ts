export { startEmbeddedSystem, type RunningSystem } from './app.js';
export { loadStandaloneConfig, type StandaloneConfig } from './config.js';
export { PROCESS_DEFINITIONS, SERVICE_DEFINITIONS, type ProcessName, type ServiceDefinitionName } from './service-definitions.js';
