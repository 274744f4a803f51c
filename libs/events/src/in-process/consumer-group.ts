import type { IncomingEvent, SubscriptionOptions } from '../event-bus.js';
import { applyIsolating, type UnapplicableRecord } from '../poison/apply-isolating.js';
import type { TopicLog } from './topic-log.js';

export interface GroupMember {
  options: SubscriptionOptions;
  running: boolean;
}

export interface DeliveryHooks {
  handled(count: number): void;
  /** Stores records the handler could not apply; the position moves past them only once this resolved. */
  putAside(records: UnapplicableRecord<unknown>[]): Promise<void>;
}

/**
 * One consumer group on one topic, as Kafka runs it: every partition is read by one running member (the
 * members share the work, in turn), and the group's position per partition moves only past a batch its
 * handler finished, so a failed batch is handed over again.
 */
export class ConsumerGroup {
  readonly members: GroupMember[] = [];
  /** Next offset to handle, per partition; unset until the group first starts. */
  private positions: number[] | undefined;
  /** Why the last batch the handler refused failed; handed to the publisher that waits for it. */
  lastError: unknown;

  constructor(
    readonly id: string,
    readonly log: TopicLog,
  ) {}

  get topicName(): string {
    return this.log.topic.name;
  }

  /** A first start takes the topic's start (`fromBeginning`) or its end; later starts resume. */
  joined(member: GroupMember): void {
    member.running = true;
    this.positions ??= Array.from({ length: this.log.partitionCount }, (_, partition) => (member.options.fromBeginning ? 0 : this.log.end(partition)));
  }

  get running(): boolean {
    return this.members.some((member) => member.running);
  }

  /** The next offset the group reads in the partition; undefined before its first start. */
  position(partition: number): number | undefined {
    return this.positions?.[partition];
  }

  lag(): number {
    if (!this.positions) return 0;
    return this.positions.reduce((sum, position, partition) => sum + Math.max(0, this.log.end(partition) - position), 0);
  }

  /**
   * Hands every partition's unread records to its member. A record whose data the handler refuses on every
   * try is put aside, and the records after it are handled. A partition whose handler fails for another
   * reason keeps its position and the others go on, as in Kafka; the first failure is thrown at the end.
   */
  async deliver(hooks: DeliveryHooks): Promise<void> {
    const running = this.members.filter((member) => member.running);
    if (!this.positions || running.length === 0) return;
    let failure: { error: unknown } | undefined;
    for (let partition = 0; partition < this.log.partitionCount; partition += 1) {
      const batch: IncomingEvent[] = this.log.readFrom(partition, this.positions[partition]!);
      if (batch.length === 0) continue;
      try {
        const unapplicable = await applyIsolating(batch, running[partition % running.length]!.options.handleBatch);
        if (unapplicable.length > 0) await hooks.putAside(unapplicable);
        hooks.handled(batch.length - unapplicable.length);
      } catch (error) {
        this.lastError = error;
        failure ??= { error };
        continue;
      }
      this.positions[partition] = Number(batch.at(-1)!.offset) + 1;
    }
    if (failure) throw failure.error;
  }
}
