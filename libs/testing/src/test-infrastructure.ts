/** Where the real services for integration tests are; filled once by the global setup. */
export interface TestInfrastructure {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    infra: TestInfrastructure;
  }
}
