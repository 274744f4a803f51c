import { z } from 'zod';

const milliseconds = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]);

/** Strimzi KafkaTopic (kafka.strimzi.io/v1beta2), restricted to the fields and topic configs we set. */
export const kafkaTopic = z.strictObject({
  apiVersion: z.literal('kafka.strimzi.io/v1beta2'),
  kind: z.literal('KafkaTopic'),
  metadata: z.object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/),
    namespace: z.string().optional(),
    labels: z.record(z.string(), z.string()).refine((labels) => Boolean(labels['strimzi.io/cluster']), 'needs the strimzi.io/cluster label'),
  }),
  spec: z.strictObject({
    topicName: z.string().regex(/^[a-zA-Z0-9._-]{1,249}$/).optional(),
    partitions: z.number().int().min(1),
    replicas: z.number().int().min(1).max(32767),
    config: z
      .strictObject({
        'cleanup.policy': z.enum(['compact', 'delete', 'compact,delete']),
        'retention.ms': milliseconds.optional(),
        'min.compaction.lag.ms': milliseconds.optional(),
        'delete.retention.ms': milliseconds.optional(),
        'min.insync.replicas': z.number().int().min(1).optional(),
      })
      .optional(),
  }),
});

export type KafkaTopic = z.infer<typeof kafkaTopic>;
