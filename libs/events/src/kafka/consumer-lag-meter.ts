import type { Kafka } from 'kafkajs';

/**
 * How far a group member is behind the ends of its partitions: measured from the committed positions when
 * it joins (a replica restarted behind a busy topic reports its backlog before the first batch), then from
 * each handled batch's high watermark. Exported as a metric; never a readiness input.
 */
export class ConsumerLagMeter {
  private readonly lagByPartition = new Map<number, number>();
  /** Batches handled per partition, so a join-time measurement never overwrites a fresher batch's lag. */
  private readonly batchesByPartition = new Map<number, number>();

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    private readonly topic: string,
    private readonly fromBeginning: boolean,
  ) {}

  total(): number {
    let total = 0;
    for (const value of this.lagByPartition.values()) total += value;
    return total;
  }

  recordBatch(partition: number, highWatermark: string, lastOffset: string): void {
    this.lagByPartition.set(partition, Math.max(0, Number(BigInt(highWatermark) - BigInt(lastOffset) - 1n)));
    this.batchesByPartition.set(partition, (this.batchesByPartition.get(partition) ?? 0) + 1);
  }

  async measureAssigned(partitions: number[]): Promise<void> {
    const batchesBefore = new Map(this.batchesByPartition);
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const [ends, [committed]] = await Promise.all([
        admin.fetchTopicOffsets(this.topic),
        admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] }),
      ]);
      for (const partition of this.lagByPartition.keys()) if (!partitions.includes(partition)) this.lagByPartition.delete(partition);
      for (const partition of partitions) {
        const end = ends.find((offsets) => offsets.partition === partition);
        if (!end || this.batchesByPartition.get(partition) !== batchesBefore.get(partition)) continue;
        const position = committed?.partitions.find((offsets) => offsets.partition === partition)?.offset ?? '-1';
        // No committed position yet: the group starts at the earliest (fromBeginning) or the latest offset.
        const start = position !== '-1' ? position : this.fromBeginning ? end.low : end.high;
        this.lagByPartition.set(partition, Math.max(0, Number(BigInt(end.high) - BigInt(start))));
      }
    } finally {
      await admin.disconnect();
    }
  }
}
