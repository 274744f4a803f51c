/**
 * The data of entities a run built that differ from the snapshot, put aside in PostgreSQL while the run goes
 * on reading, and read back in chunks when it writes (write/write-changes.ts). Only one run builds at a time
 * (the advisory lock), and each empties the table when it starts building (begin). Each row names its run, a run
 * reads back only its own and, once it is over, deletes only its own: should the lock's session end during a run
 * and another replica run beside it, neither takes the other's data, and the end of one leaves the other's in
 * place. (The later one to start building empties the table under the earlier, which then fails for want of its
 * data, whether or not its commit would have passed the fence: two runs at once cost a run, never a wrong commit.)
 */
import type { EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { snapshotKey } from '../normalise/normalised-entity.js';
import { selectByKeys } from './snapshot-store.js';

export interface StagedEntity {
  entityType: EntityType;
  entityId: string;
  data: Record<string, unknown>;
}

export interface StagedEntityStoreDeps {
  /** On the `sync` schema. */
  knex: Knex;
}

/** Entities written per statement. */
const BATCH = 500;
/** Batches that may wait for their write before add waits too: the run goes on reading meanwhile. */
const BATCHES_AHEAD = 4;

export class StagedEntityStore {
  private readonly knex: Knex;
  /** The run staging now (begin); none after clear. */
  private runId: string | undefined;
  private pending: StagedEntity[] = [];
  /** Writes run one after another, each with the batch it took; once one fails, the rest are skipped. */
  private writing: Promise<void> = Promise.resolve();
  /** Batches taken and not yet written. */
  private queued = 0;

  constructor(deps: StagedEntityStoreDeps) {
    this.knex = deps.knex;
  }

  /**
   * Empties the table, which holds nothing of a run in progress unless two run at once, and whatever runs that
   * crashed left; stages for `runId` from now on.
   */
  async begin(runId: string): Promise<void> {
    await this.settle();
    await this.knex.raw('truncate staged_entities');
    this.runId = runId;
  }

  /** Deletes what this run staged, and forgets a failed write of it (its run has failed with it). */
  async clear(): Promise<void> {
    const runId = this.runId;
    await this.settle();
    if (runId !== undefined) await this.knex('staged_entities').where({ sync_run_id: runId }).delete();
  }

  /**
   * Stages `entities`. Full batches are written in the background, one statement at a time; add waits only
   * while more than a few are queued, so memory stays bounded and reading is not held up by each write.
   */
  async add(entities: readonly StagedEntity[]): Promise<void> {
    this.currentRun();
    this.pending.push(...entities);
    while (this.pending.length >= BATCH) {
      const written = this.writeBatch();
      // The error surfaces at the next add or at flush, which await the chain.
      written.catch(() => undefined);
      if (this.queued > BATCHES_AHEAD) await written;
    }
  }

  /** Writes what is still held. */
  async flush(): Promise<void> {
    while (this.pending.length > 0) await this.writeBatch();
    await this.writing;
  }

  /** The data this run staged for `keys`, by snapshotKey; read inside the run's transaction. */
  async load(db: Knex, keys: readonly { entityType: EntityType; entityId: string }[]): Promise<Map<string, Record<string, unknown>>> {
    const columns = ['entity_type', 'entity_id', 'data'];
    const rows = await selectByKeys<{ entity_type: EntityType; entity_id: string; data: Record<string, unknown> }>(db, {
      table: 'staged_entities',
      columns,
      alsoWhere: { sync_run_id: this.currentRun() },
    }, keys);
    return new Map(rows.map((row) => [snapshotKey(row.entity_type, row.entity_id), row.data]));
  }

  /** Ends the run's staging: nothing pending, the writes in flight waited for. */
  private async settle(): Promise<void> {
    this.runId = undefined;
    this.pending = [];
    await this.writing.catch(() => undefined);
    this.writing = Promise.resolve();
    this.queued = 0;
  }

  private currentRun(): string {
    if (this.runId === undefined) throw new Error('staged entities used outside a run: begin was not called');
    return this.runId;
  }

  private writeBatch(): Promise<void> {
    const runId = this.currentRun();
    const batch = this.pending.splice(0, BATCH);
    this.queued += 1;
    this.writing = this.writing.then(async () => {
      const rows = batch.map((entity) => ({ sync_run_id: runId, entity_type: entity.entityType, entity_id: entity.entityId, data: JSON.stringify(entity.data) }));
      try {
        await this.knex('staged_entities').insert(rows).onConflict(['sync_run_id', 'entity_type', 'entity_id']).merge();
      } finally {
        this.queued -= 1;
      }
    });
    return this.writing;
  }
}
