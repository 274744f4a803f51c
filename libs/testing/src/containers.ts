import { GenericContainer, Wait, getContainerRuntimeClient } from 'testcontainers';
import type { TestInfrastructure } from './test-infrastructure.js';

export async function dockerAnswers(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** On machines with a Docker engine: the same four services as containers (stopped by Ryuk after the run). */
export async function startContainers(): Promise<TestInfrastructure> {
  const [postgres, redis, kafka, registry] = await Promise.all([
    new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine').withExposedPorts(6379).start(),
    new GenericContainer('apache/kafka:3.9.1')
      .withExposedPorts({ container: 9092, host: 39092 })
      .withEnvironment({
        KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
        KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://127.0.0.1:39092',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .start(),
    new GenericContainer('apicurio/apicurio-registry:3.0.9').withExposedPorts(8080).start(),
  ]);
  return {
    databaseUrl: `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    kafkaBrokers: [`${kafka.getHost()}:39092`],
    schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
  };
}
