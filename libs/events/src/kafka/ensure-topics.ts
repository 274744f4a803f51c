import type { Kafka } from 'kafkajs';
import { deadLetterTopicOf } from './dead-letters.js';

export interface TopicToEnsure {
  name: string;
  compacted: boolean;
}

const ATTEMPTS = 5;

/**
 * Creates the topics (and a dead-letter topic beside each) that do not exist yet. Several processes start
 * together and create the same topics; the broker then briefly answers metadata requests for a topic whose
 * leader is still being elected with "does not host this topic-partition", so the whole step is retried.
 */
export async function ensureTopics(kafka: Kafka, topics: TopicToEnsure[], partitions: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await createMissing(kafka, topics, partitions);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || (error as { retriable?: boolean }).retriable === false) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

async function createMissing(kafka: Kafka, topics: TopicToEnsure[], partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    // A dead-letter topic keeps every refused message, tombstones of compacted topics included.
    const wanted = topics.flatMap((topic) => [topic, { name: deadLetterTopicOf(topic.name), compacted: false }]);
    const missing = wanted.filter((topic) => !existing.has(topic.name));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic: topic.name,
        numPartitions: partitions,
        configEntries: topic.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
      })),
    });
  } finally {
    await admin.disconnect();
  }
}
