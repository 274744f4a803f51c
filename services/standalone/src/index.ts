export { startEmbeddedSystem, type RunningSystem } from './app.js';
export { loadStandaloneConfig, type StandaloneConfig } from './config.js';
