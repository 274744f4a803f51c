import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { InProcessBus, KafkaBus, type EventBus, type EventConsumer, type IncomingEvent } from '@timetable/events';
import { RefusedEventError } from '@timetable/events/testing';
import { captureLogger, testInfrastructure } from '@timetable/testing';

/**
 * One behaviour suite for both buses: what a service may rely on, whichever run mode composed it. The
 * embedded mode's in-process bus must behave as Kafka does on every point the services depend on.
 */
const thing = z.object({ id: z.uuid(), n: z.number().int() });
type Thing = z.infer<typeof thing>;
const suffix = randomUUID().slice(0, 8);
const plainTopic: TopicDefinition<typeof thing> = { name: `test.behaviour.${suffix}`, schema: thing, compacted: false };
const compactTopic: TopicDefinition<typeof thing> = { name: `test.behaviour-state.${suffix}`, schema: thing, compacted: true };
const { logger } = captureLogger('error');

const buses: Record<string, () => EventBus> = {
  'the in-process bus': () => new InProcessBus(logger, { topics: [plainTopic, compactTopic] }),
  'the Kafka bus': () => {
    const infra = testInfrastructure();
    return new KafkaBus({
      brokers: infra.kafkaBrokers,
      clientId: 'bus-behaviour-test',
      schemaRegistryUrl: infra.schemaRegistryUrl,
      topics: [plainTopic, compactTopic],
      // A failed batch is retried after a short backoff here; giving up is not what this suite is about.
      onConsumerFailure: (error) => logger.error({ err: error }, 'consumer gave up'),
      logger,
    });
  },
};

async function eventually(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(Object.keys(buses))('%s', (name) => {
  let bus: EventBus;
  const running: EventConsumer[] = [];

  beforeAll(async () => {
    bus = buses[name]!();
    await bus.connect();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((consumer) => consumer.stop()));
  });
  afterAll(() => bus.disconnect());

  /** Publishes as the outbox relay does: a publish that failed (a handler threw) is repeated until it succeeds. */
  async function relayPublish(topic: TopicDefinition, events: { key: string; value: Thing | null }[]): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await bus.publish(events.map((event) => ({ topic: topic.name, ...event })));
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** A started consumer that records what it handles; `fail` may throw to refuse a batch. */
  async function consume(options: { group: string; topic?: TopicDefinition<typeof thing>; fromBeginning?: boolean; fail?: (event: IncomingEvent<Thing>) => boolean }) {
    const received: IncomingEvent<Thing>[] = [];
    const consumer = bus.subscribe({
      groupId: options.group,
      topic: options.topic ?? plainTopic,
      fromBeginning: options.fromBeginning ?? true,
      handleBatch: async (events) => {
        if (options.fail && events.some(options.fail)) throw new Error('handler failed');
        received.push(...events);
      },
    });
    running.push(consumer);
    await consumer.start();
    return received;
  }

  /** Events of this test only (topics are shared by the tests of a bus). */
  const ofRun = (received: IncomingEvent<Thing>[], run: string) => received.filter((event) => event.key.startsWith(run));

  /**
   * Publishes probes until every consumer handled one: a Kafka group member has then joined and holds its
   * position, so what is published next reaches it (a consumer without fromBeginning starts at the end).
   */
  async function untilAllSee(run: string, consumers: (() => IncomingEvent<Thing>[])[]): Promise<void> {
    for (let round = 0; !consumers.every((received) => ofRun(received(), `${run}:probe`).length > 0); round += 1) {
      if (round > 60) throw new Error('a consumer never joined');
      await relayPublish(plainTopic, Array.from({ length: 6 }, (_, index) => ({ key: `${run}:probe:${round}:${index}`, value: { id: randomUUID(), n: -1 } })));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  it('hands the events of one key over in the order they were published', async () => {
    const run = randomUUID();
    const received = await consume({ group: `order-${run}` });
    const events = Array.from({ length: 20 }, (_, n) => ({ key: `${run}:${n % 3}`, value: { id: randomUUID(), n } }));
    await relayPublish(plainTopic, events.slice(0, 10));
    await relayPublish(plainTopic, events.slice(10));
    await eventually('all 20 events', () => ofRun(received, run).length >= 20);
    for (const key of [0, 1, 2].map((index) => `${run}:${index}`)) {
      const sent = events.filter((event) => event.key === key).map((event) => event.value.n);
      expect(received.filter((event) => event.key === key).map((event) => event.value?.n)).toEqual(sent);
    }
  });

  it('lets the members of one group share the work, while another group gets every event', async () => {
    const run = randomUUID();
    const first = await consume({ group: `shared-${run}` });
    const second = await consume({ group: `shared-${run}` });
    const other = await consume({ group: `other-${run}` });
    await untilAllSee(run, [() => [...first, ...second], () => other]);
    const events = Array.from({ length: 30 }, (_, n) => ({ key: `${run}:work:${n}`, value: { id: randomUUID(), n } }));
    await relayPublish(plainTopic, events);
    const handledByGroup = () => new Set(ofRun([...first, ...second], `${run}:work`).map((event) => event.key));
    await eventually('the group to handle all 30', () => handledByGroup().size === 30);
    await eventually('the other group to get all 30', () => new Set(ofRun(other, `${run}:work`).map((event) => event.key)).size === 30);
    expect(ofRun(first, run).length, 'events the first member handled').toBeGreaterThan(0);
    expect(ofRun(second, run).length, 'events the second member handled').toBeGreaterThan(0);
    // Shared, not copied: with both members settled in the group, no event reaches both.
    const firstKeys = new Set(ofRun(first, `${run}:work`).map((event) => event.key));
    expect(ofRun(second, `${run}:work`).filter((event) => firstKeys.has(event.key))).toEqual([]);
  });

  it('reads what the topic holds for a new group with fromBeginning, and only what comes later without it', async () => {
    const run = randomUUID();
    const early = { key: `${run}:early`, value: { id: randomUUID(), n: 1 } };
    await relayPublish(plainTopic, [early]);
    const fromStart = await consume({ group: `start-${run}`, fromBeginning: true });
    const fromEnd = await consume({ group: `end-${run}`, fromBeginning: false });
    await untilAllSee(run, [() => fromEnd]);
    await relayPublish(plainTopic, [{ key: `${run}:late`, value: { id: randomUUID(), n: 2 } }]);
    await eventually('both to get the late event', () => [fromStart, fromEnd].every((received) => ofRun(received, `${run}:late`).length > 0));
    expect(ofRun(fromStart, `${run}:early`)).toHaveLength(1);
    expect(ofRun(fromEnd, `${run}:early`)).toHaveLength(0);
  });

  it('hands a batch whose handler failed over again, so nothing is lost and the order holds', async () => {
    const run = randomUUID();
    let failures = 0;
    const received = await consume({
      group: `retry-${run}`,
      fail: (event) => event.key === `${run}:k` && event.value?.n === 2 && failures++ === 0,
    });
    await relayPublish(plainTopic, [1, 2, 3].map((n) => ({ key: `${run}:k`, value: { id: randomUUID(), n } })));
    await eventually('the three events', () => new Set(ofRun(received, run).map((event) => event.value?.n)).size === 3);
    expect(failures).toBeGreaterThan(0);
    const handled = ofRun(received, run).map((event) => event.value?.n);
    expect(handled.indexOf(2)).toBeLessThan(handled.lastIndexOf(3));
    expect(handled.filter((n) => n === 3).length).toBeGreaterThan(0);
  });

  it('carries a tombstone (null) on a compacted topic and refuses one elsewhere', async () => {
    const run = randomUUID();
    const received = await consume({ group: `tombstone-${run}`, topic: compactTopic });
    const id = randomUUID();
    await relayPublish(compactTopic, [{ key: `${run}:x`, value: { id, n: 1 } }, { key: `${run}:x`, value: null }]);
    await eventually('the tombstone', () => ofRun(received, run).some((event) => event.value === null));
    // Compaction may drop a superseded value before a consumer reads it; the latest one always arrives, last.
    const values = ofRun(received, run).map((event) => event.value);
    expect(values.at(-1)).toBeNull();
    expect(values.slice(0, -1).every((value) => value?.id === id && value.n === 1)).toBe(true);
    await expect(bus.publish([{ topic: plainTopic.name, key: `${run}:y`, value: null }])).rejects.toThrow(RefusedEventError);
  });

  it('refuses a value its topic schema refuses, and sends none of that publish', async () => {
    const run = randomUUID();
    const received = await consume({ group: `refused-${run}` });
    const good = { topic: plainTopic.name, key: `${run}:good`, value: { id: randomUUID(), n: 1 } };
    const bad = { topic: plainTopic.name, key: `${run}:bad`, value: { id: 'not-a-uuid', n: 'one' } };
    await expect(bus.publish([good, bad])).rejects.toThrow(RefusedEventError);
    await relayPublish(plainTopic, [{ key: `${run}:after`, value: { id: randomUUID(), n: 2 } }]);
    await eventually('the event after', () => ofRun(received, `${run}:after`).length > 0);
    expect(ofRun(received, `${run}:bad`)).toHaveLength(0);
    expect(ofRun(received, `${run}:good`)).toHaveLength(0);
  });
});
