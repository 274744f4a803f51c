import type { Knex } from '@timetable/db';
import { gauge, type Lifecycle, type Logger } from '@timetable/observability';
import type { EventBus } from '../event-bus.js';

const outboxBacklog = gauge({
  name: 'outbox_backlog_messages',
  help: 'Rows waiting in a service outbox',
  labelNames: ['schema'],
});

export interface OutboxRelaySettings {
  knex: Knex;
  /** The owning service's schema; also names the advisory lock. */
  schema: string;
  bus: EventBus;
  logger: Logger;
  batchSize?: number;
  /** Poll interval when idle; `wake()` short-circuits it after a commit. */
  idleMs?: number;
}

interface OutboxRow {
  id: number;
  topic: string;
  message_key: string;
  value: unknown;
  headers: Record<string, string>;
}

/**
 * Publishes outbox rows in id order and deletes them in the same transaction, so a crash between
 * publish and delete re-publishes (at-least-once; consumers dedupe) and nothing is lost. A transaction
 * advisory lock keeps one relay per service active at a time, which preserves order across replicas.
 */
export class OutboxRelay implements Lifecycle {
  private running = false;
  private healthy = true;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake that arrives while a batch is in flight must not be lost to the following sleep. */
  private wakeRequested = false;

  constructor(private readonly settings: OutboxRelaySettings) {}

  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.loop = this.run();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  /** Called after a transaction that appended rows commits. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  /** Publishes everything pending now; used by tests and on shutdown. */
  async drain(): Promise<void> {
    while ((await this.relayBatch()) > 0);
  }

  async backlog(): Promise<number> {
    const [row] = await this.settings.knex('outbox').count<{ count: number }[]>({ count: '*' });
    return Number(row?.count ?? 0);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const published = await this.relayBatch();
        this.healthy = true;
        failures = 0;
        if (published > 0) {
          await this.measureBacklog();
          continue;
        }
        outboxBacklog.set({ schema: this.settings.schema }, 0);
        await this.sleep(this.settings.idleMs ?? 1000);
      } catch (error) {
        failures += 1;
        this.healthy = failures < 5;
        this.settings.logger.warn({ err: error, failures }, 'outbox relay could not publish; retrying');
        // While Kafka is away the backlog grows; the gauge is what the TimetableOutboxBacklog alert watches.
        await this.measureBacklog();
        await this.sleep(Math.min(30_000, 250 * 2 ** failures));
      }
    }
  }

  private async measureBacklog(): Promise<void> {
    try {
      outboxBacklog.set({ schema: this.settings.schema }, await this.backlog());
    } catch {
      // The database is down as well; the gauge keeps its last value.
    }
  }

  private async relayBatch(): Promise<number> {
    const { knex, schema, bus } = this.settings;
    return knex.transaction(async (trx) => {
      const lock = await trx.raw<{ rows: { locked: boolean }[] }>(
        'select pg_try_advisory_xact_lock(hashtext(?)) as locked',
        [`outbox-relay:${schema}`],
      );
      if (!lock.rows[0]?.locked) return 0;
      const rows: OutboxRow[] = await trx('outbox')
        .select('id', 'topic', 'message_key', 'value', 'headers')
        .orderBy('id')
        .limit(this.settings.batchSize ?? 500);
      if (rows.length === 0) return 0;
      await bus.publish(
        rows.map((row) => ({ topic: row.topic, key: row.message_key, value: row.value ?? null, headers: row.headers })),
      );
      await trx('outbox').whereIn('id', rows.map((row) => row.id)).delete();
      return rows.length;
    });
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested) {
      this.wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeRequested = false;
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
