import type { Logger } from '@timetable/observability';
import { deliveriesTotal } from './delivery-metrics.js';
import type { AttemptRecord, DeliveryStore, HeldLease } from './delivery-store.js';

/** Outcomes written in one statement at most. */
export const RECORD_BATCH_SIZE = 256;
/**
 * How long the first outcome of a batch waits for others before the batch is written. A statement costs
 * PostgreSQL about half a millisecond whatever its size (a commit) and each row far less, so batches of
 * dozens rather than a handful matter; the delay only holds the lease a little longer, never an attempt.
 */
export const RECORD_DELAY_MS = 20;

interface PendingRecord {
  lease: HeldLease;
  record: AttemptRecord;
}

export interface OutcomeRecorderDeps {
  store: DeliveryStore;
  logger: Logger;
  batchSize?: number;
  delayMs?: number;
  /**
   * Called after each batch is written or dropped, with how many outcomes it held (a batch may hold only
   * releases): the leases it held are free, which may give the dispatcher room to claim again when no
   * attempt is left to end and tell it so.
   */
  onWritten?: (outcomes: number) => void;
}

/**
 * Writes attempt outcomes and released leases in batches, one statement per batch: a batch is written when
 * it is full or `delayMs` after its first entry, one batch at a time (what arrives meanwhile forms the
 * next, written once it is full or its own first entry has waited `delayMs`). Each row is written only where its lease is still held. Until it is written an outcome exists only
 * here: the delivery stays leased in the database and, should the process die, is sent again under the same
 * webhook-id once the lease runs out, never taken as delivered. A batch that cannot be written is logged and
 * dropped, with the same effect. `flushed()` resolves once everything handed over so far is written.
 */
export class OutcomeRecorder {
  private records: PendingRecord[] = [];
  private releases: HeldLease[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the oldest entry not yet taken into a batch was handed over (performance.now()). */
  private firstAt = 0;
  private writing: Promise<void> | undefined;
  /** Handed over and not yet written (or dropped), in the batch being written included. */
  private unwritten = 0;

  private readonly store: DeliveryStore;
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly delayMs: number;
  private readonly onWritten: (outcomes: number) => void;

  constructor(deps: OutcomeRecorderDeps) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.batchSize = deps.batchSize ?? RECORD_BATCH_SIZE;
    this.delayMs = deps.delayMs ?? RECORD_DELAY_MS;
    this.onWritten = deps.onWritten ?? (() => undefined);
  }

  /** Leases this process still holds only because their outcome or release is not yet written. */
  get size(): number {
    return this.unwritten;
  }

  record(lease: HeldLease, record: AttemptRecord): void {
    this.startsBatch();
    this.records.push({ lease, record });
    this.added();
  }

  release(leases: HeldLease[]): void {
    if (leases.length === 0) return;
    this.startsBatch();
    this.releases.push(...leases);
    this.unwritten += leases.length - 1;
    this.added();
  }

  /** Writes what is waiting now, without the delay, and resolves once everything handed over is written. */
  async flushed(): Promise<void> {
    while (this.writing || this.records.length > 0 || this.releases.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
    }
  }

  private startsBatch(): void {
    if (this.waiting === 0) this.firstAt = performance.now();
  }

  private added(): void {
    this.unwritten += 1;
    this.schedule();
  }

  /** Handed over and not yet taken into a batch. */
  private get waiting(): number {
    return this.records.length + this.releases.length;
  }

  private schedule(): void {
    if (this.writing) return;
    if (this.waiting >= this.batchSize) this.startWriting();
    else this.timer ??= setTimeout(() => this.startWriting(), Math.max(0, this.firstAt + this.delayMs - performance.now()));
  }

  private startWriting(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = undefined;
      // Handed over after the last batch was taken: written when full or once its first entry has waited.
      if (this.waiting > 0) this.schedule();
    });
  }

  /** One batch, then more at once only while full ones wait (a backlog); `flushed()` writes the rest. */
  private async writeAll(): Promise<void> {
    do {
      const records = this.records.splice(0, this.batchSize);
      const releases = this.releases.splice(0, this.batchSize - records.length);
      try {
        await Promise.all([this.writeRecords(records), this.writeReleases(releases)]);
      } finally {
        this.unwritten -= records.length + releases.length;
        this.onWritten(records.length);
      }
    } while (this.waiting >= this.batchSize);
  }

  private async writeRecords(batch: PendingRecord[]): Promise<void> {
    if (batch.length === 0) return;
    let lost: Set<string>;
    try {
      lost = new Set(await this.store.recordAttempts(batch));
    } catch (error) {
      this.logger.error(
        { err: error, deliveryIds: batch.map((entry) => entry.lease.id) },
        'delivery attempts not recorded; retried when their leases expire',
      );
      return;
    }
    // Counted per status once a batch, not once an outcome: each increment hashes its labels.
    const written = { delivered: 0, retrying: 0, failed: 0 };
    for (const { lease, record } of batch) {
      if (lost.has(lease.id)) {
        this.logger.warn({ deliveryId: lease.id }, 'delivery lease lost before recording; outcome discarded');
        continue;
      }
      written[record.status === 'pending' ? 'retrying' : record.status] += 1;
    }
    for (const [status, count] of Object.entries(written)) if (count > 0) deliveriesTotal.inc({ status }, count);
  }

  private async writeReleases(batch: HeldLease[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.store.releaseAll(batch);
      deliveriesTotal.inc({ status: 'released' }, batch.length);
    } catch (error) {
      this.logger.error({ err: error, deliveryIds: batch.map((lease) => lease.id) }, 'delivery leases not released; due again when they expire');
    }
  }
}
