export { openServiceStore, type ServiceStoreSettings } from './service-store.js';
export { openDistributedBackends, type DistributedBackendSettings, type DistributedBackends } from './distributed-backends.js';
export { ShutdownStack } from './shutdown-stack.js';
export { serveApp, serveModule, type ServeModuleOptions, type ServedModule } from './serve-module.js';
export { drainOnSignal, type DrainOnSignalOptions, type ProcessExit, type Stoppable } from './drain-on-signal.js';
export { runServiceProcess, type ServiceProcessContext, type ServiceProcessOptions } from './run-service-process.js';
export { runService, runProcess, type RunProcessOptions } from './run-service.js';
export { openProcessBackends, type ProcessBackendsOptions, type ProcessHostConfig } from './process-backends.js';
export {
  buildContext,
  defineService,
  isAppModule,
  noOverrides,
  type AppModule,
  type PlatformServices,
  type ServiceBuildContext,
  type ServiceDefinition,
  type ServiceStore,
  type TopicName,
} from './define-service.js';
