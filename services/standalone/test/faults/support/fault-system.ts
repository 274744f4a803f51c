import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startStack, type RunningStack } from '../../../../../scripts/stack/start-stack.js';
import { startPrivateInfrastructure, type PrivateInfrastructure } from './private-infrastructure.js';
import { startRecordingReceiver } from './recording-receiver.js';
import { sql } from './sql.js';
import { callApi, subscribeGlobally, type SystemUnderFault } from './system-under-fault.js';

/**
 * The distributed stack (one process per service, supervised as a platform would) on private PostgreSQL,
 * Redis, Kafka and registry, a webhook receiver, and a global webhook to it: what every row of the fault
 * matrix runs its stream of upstream changes through.
 */
export interface FaultSystem extends SystemUnderFault {
  stack: RunningStack;
  infra: PrivateInfrastructure;
  /** The developer key that owns the test's webhooks. */
  apiKey: string;
  stop(): Promise<void>;
}

/** Short cycles, so a row takes seconds of churn rather than minutes; the rules are the production ones. */
export const FAULT_ENV: Record<string, string> = {
  LOG_LEVEL: 'info',
  SYNC_INTERVAL_SECONDS: '2',
  DELIVERY_INTERVAL_SECONDS: '1',
  DELIVERY_RETRY_DELAYS_SECONDS: '1,2,3',
  RATE_LIMITS: '1000000/1s',
  WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  TRUST_PROXY: 'loopback',
};

export async function startFaultSystem(): Promise<FaultSystem> {
  const infra = await startPrivateInfrastructure();
  const receiver = await startRecordingReceiver();
  let stack: RunningStack | undefined;
  try {
    stack = await startStack({
      infrastructure: {
        databaseUrl: infra.postgres.url,
        redisUrl: infra.redis.url,
        kafkaBrokers: infra.kafka.brokers,
        schemaRegistryUrl: infra.registry.url,
      },
      logDir: mkdtempSync(path.join(tmpdir(), 'timetable-faults-logs-')),
      env: FAULT_ENV,
    });
  } catch (error) {
    await receiver.close();
    await infra.stop();
    throw error;
  }
  const running = stack;
  const base: SystemUnderFault = {
    upstreamBaseUrl: running.upstreamBaseUrl,
    publicUrl: running.gatewayUrl,
    receiver,
    api: (apiPath, init) => callApi(running.gatewayUrl, apiPath, init),
    query: (service, text, params) => sql(running.databaseUrls[service] ?? '', text, params),
    deadLetterCount: () => deadLetterCount(infra.kafka.brokers, `${running.namespace}.`),
  };
  const apiKey = await subscribeGlobally(base);
  return {
    ...base,
    stack: running,
    infra,
    apiKey,
    async stop() {
      await running.stop();
      await receiver.close();
      await infra.stop();
    },
  };
}

/** Messages in the stack's `<topic>.dlq` topics (all three must exist). */
async function deadLetterCount(brokers: string[], prefix: string): Promise<number> {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix) && topic.endsWith('.dlq'));
    if (topics.length !== 3) throw new Error(`expected 3 dead-letter topics, found ${topics.join(', ')}`);
    let total = 0;
    for (const topic of topics) {
      for (const partition of await admin.fetchTopicOffsets(topic)) total += Number(partition.high) - Number(partition.low);
    }
    return total;
  } finally {
    await admin.disconnect();
  }
}
