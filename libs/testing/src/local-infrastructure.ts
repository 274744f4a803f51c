import type { TestInfrastructure } from './test-infrastructure.js';

/** Where `scripts/infra-up.sh` and a developer machine's own services listen: the default of every test and stack. */
export const LOCAL_INFRASTRUCTURE: TestInfrastructure = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: 'redis://127.0.0.1:6379',
  kafkaBrokers: ['127.0.0.1:9092'],
  schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
};
