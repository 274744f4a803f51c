// Waits until a Kafka broker answers metadata requests and reports itself in the cluster, so callers can
// produce right away. Used by infra-up.sh; exits 0 when ready, 1 after the deadline.
// Usage: node scripts/wait-for-kafka.mjs [brokers=127.0.0.1:9092] [timeoutSeconds=90]
import { Kafka, logLevel } from 'kafkajs';

const brokers = (process.argv[2] ?? '127.0.0.1:9092').split(',');
const timeoutMs = Number(process.argv[3] ?? 90) * 1000;
const deadline = Date.now() + timeoutMs;

const kafka = new Kafka({
  clientId: 'wait-for-kafka',
  brokers,
  logLevel: logLevel.NOTHING,
  connectionTimeout: 1000,
  requestTimeout: 3000,
  // Retries are this script's loop; kafkajs's own backoff would overshoot the deadline.
  retry: { retries: 0 },
});

async function probe() {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
    const { brokers: live, controller } = await admin.describeCluster();
    if (live.length === 0 || controller === null) throw new Error('no live broker or controller yet');
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

let lastError;
while (Date.now() < deadline) {
  try {
    await probe();
    process.exit(0);
  } catch (error) {
    lastError = error;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
process.stderr.write(`Kafka at ${brokers.join(',')} not ready after ${timeoutMs / 1000}s: ${lastError?.message ?? 'unknown'}\n`);
process.exit(1);
