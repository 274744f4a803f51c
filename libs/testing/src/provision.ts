import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { kafkaAnswers, postgresAnswers, redisAnswers, registryAnswers } from './probes.js';
import { LOCAL_INFRASTRUCTURE } from './local-infrastructure.js';
import type { TestInfrastructure } from './test-infrastructure.js';
import { startContainers, dockerAnswers } from './containers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const defaults = LOCAL_INFRASTRUCTURE;

/**
 * Finds the real services integration tests need: URLs from the environment first, then a Docker
 * engine through testcontainers, then the local launchers in scripts/. Never skips: if a service cannot
 * be had, the run fails with a message saying which and how to start it.
 */
export async function provisionInfrastructure(): Promise<TestInfrastructure> {
  const configured: TestInfrastructure = {
    databaseUrl: process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? defaults.databaseUrl,
    redisUrl: process.env.REDIS_URL ?? defaults.redisUrl,
    kafkaBrokers: process.env.KAFKA_BROKERS?.split(',').map((broker) => broker.trim()) ?? defaults.kafkaBrokers,
    schemaRegistryUrl: process.env.SCHEMA_REGISTRY_URL ?? defaults.schemaRegistryUrl,
  };
  if (await allAnswer(configured)) return configured;
  if (await dockerAnswers()) return startContainers();
  const launcher = spawnSync('bash', [path.join(repoRoot, 'scripts/infra-up.sh')], { cwd: repoRoot, stdio: 'inherit' });
  if (launcher.status === 0 && (await allAnswer(configured))) return configured;
  throw new Error(
    `Integration tests need PostgreSQL, Redis, Kafka and a schema registry, and not all answer:\n${await describe(configured)}\n` +
      'Start them with `bash scripts/infra-up.sh` or point DATABASE_URL, REDIS_URL, KAFKA_BROKERS and SCHEMA_REGISTRY_URL at running ones.',
  );
}

async function allAnswer(infra: TestInfrastructure): Promise<boolean> {
  const answers = await Promise.all([
    postgresAnswers(infra.databaseUrl),
    redisAnswers(infra.redisUrl),
    kafkaAnswers(infra.kafkaBrokers),
    registryAnswers(infra.schemaRegistryUrl),
  ]);
  return answers.every(Boolean);
}

async function describe(infra: TestInfrastructure): Promise<string> {
  const lines = [
    [`PostgreSQL ${infra.databaseUrl}`, await postgresAnswers(infra.databaseUrl)],
    [`Redis ${infra.redisUrl}`, await redisAnswers(infra.redisUrl)],
    [`Kafka ${infra.kafkaBrokers.join(',')}`, await kafkaAnswers(infra.kafkaBrokers)],
    [`Schema registry ${infra.schemaRegistryUrl}`, await registryAnswers(infra.schemaRegistryUrl)],
  ] as const;
  return lines.map(([name, ok]) => `  ${ok ? 'ok     ' : 'MISSING'} ${name}`).join('\n');
}
