export type { TestInfrastructure } from './test-infrastructure.js';
export { testInfrastructure, createTestDatabase, createMigratedKnex, type TestDatabase } from './test-database.js';
export { provisionInfrastructure } from './provision.js';
export { postgresAnswers, redisAnswers, kafkaAnswers, registryAnswers } from './probes.js';
export { captureLogger } from './capture-logger.js';
