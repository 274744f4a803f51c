import type { TopicDefinition } from '@timetable/contracts';
import type { IncomingEvent } from '../event-bus.js';

/** FNV-1a: the same key always lands in the same partition, so events of one key keep their order. */
export function partitionOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return (hash >>> 0) % partitions;
}

interface Partition {
  /** Offset of records[0]; older records were dropped by retention. */
  base: number;
  /** By offset - base; a record superseded by a later one of its key (compaction) is undefined. */
  records: (IncomingEvent | undefined)[];
  /** Compacted topics: the offset of each key's latest record. */
  latestByKey: Map<string, number>;
}

/**
 * The retained records of one topic, in memory, as Kafka would keep them: partitioned by key, compacted
 * topics keeping the latest record per key (tombstones included), the others their last `retention`
 * records per partition and whatever a group has yet to read.
 */
export class TopicLog {
  private readonly partitions: Partition[];

  constructor(
    readonly topic: TopicDefinition,
    partitionCount: number,
    private readonly retention: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, () => ({ base: 0, records: [], latestByKey: new Map() }));
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** Where the record went. */
  append(event: Omit<IncomingEvent, 'partition' | 'offset'>): { partition: number; offset: number } {
    const partition = partitionOf(event.key, this.partitions.length);
    const log = this.partitions[partition]!;
    const offset = log.base + log.records.length;
    log.records.push({ ...event, partition, offset: String(offset) });
    if (this.topic.compacted) {
      const previous = log.latestByKey.get(event.key);
      if (previous !== undefined) log.records[previous - log.base] = undefined;
      log.latestByKey.set(event.key, offset);
    }
    return { partition, offset };
  }

  /**
   * Drops what retention no longer keeps of a topic that is not compacted: records beyond the last
   * `retention`, but never one that a group has yet to read (`unread[partition]`: the lowest position).
   */
  trim(unread: (number | undefined)[]): void {
    if (this.topic.compacted) return;
    this.partitions.forEach((log, partition) => {
      const cutoff = Math.min(log.base + log.records.length - this.retention, unread[partition] ?? Number.POSITIVE_INFINITY);
      if (cutoff <= log.base) return;
      log.records.splice(0, cutoff - log.base);
      log.base = cutoff;
    });
  }

  /** The offset the next record of the partition gets. */
  end(partition: number): number {
    const log = this.partitions[partition]!;
    return log.base + log.records.length;
  }

  /** The retained records of the partition from `offset` on (from the oldest retained if that is later). */
  readFrom(partition: number, offset: number): IncomingEvent[] {
    const log = this.partitions[partition]!;
    return log.records.slice(Math.max(0, offset - log.base)).filter((record): record is IncomingEvent => record !== undefined);
  }
}
