/** A delivery this dispatcher holds the lease of, with what it needs to build and send the body. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  /** When the lease runs out: an attempt starts only with time left to finish and be recorded before it. */
  leaseUntil: Date;
  messageId: string;
  eventType: string;
  attempts: number;
  /** The webhook: the endpoint whose breaker the attempt goes through. */
  webhookId: string;
  url: string;
  /** `host:port` of the URL: the unit of the per-host limit. */
  host: string;
  developerId: string;
  secret: string | null;
  webhookDeleted: boolean;
  /** The body's `data` as JSON (changeDataJson); null for a test delivery. */
  data: string | null;
}

export interface AttemptRecord {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastAttemptAt: Date;
  nextRetryAt: Date | null;
  responseCode: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  deliveredAt: Date | null;
  /** The raw JSON body sent, stored verbatim (spliced into the batch statement as JSON, so it must be JSON). */
  payload: string;
}

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  claimToken: string;
  /** How many deliveries to lease at most. */
  limit: number;
  /** DELIVERY_HOST_CONCURRENCY, across every dispatcher replica. */
  hostLimit: number;
  /**
   * The dispatcher instance claiming. With it, leases to a host that no other dispatcher holds a lease to
   * may reach `hostAheadLimit`, more than may be in flight (the dispatcher queues them); without it, or
   * while another dispatcher holds a lease to the host, they stay within `hostLimit`.
   */
  claimedBy?: string;
  /** Leases one dispatcher may hold to a host it alone holds leases to; default `hostLimit`. */
  hostAheadLimit?: number;
  /** Hosts that get no leases ahead, whoever holds leases to them (the dispatcher's attempts to them are slow). */
  slowHosts?: readonly string[];
  /**
   * Hosts known to answer. Given, only these get leases ahead: any other host is held to `hostLimit` until
   * it has answered, so one that never does holds no queue while the dispatcher finds out. Without it, any
   * host may be leased ahead.
   */
  answeringHosts?: readonly string[];
}

/** An open breaker's postponement: the endpoint (webhook) and when its breaker half-opens. */
export interface Postponement {
  webhookId: string;
  retryAt: Date;
  now: Date;
}

/**
 * What ending a lease needs: the delivery and its lease, checked when the outcome is written, and the host
 * and developer whose lease count it leaves.
 */
export type HeldLease = Pick<ClaimedDelivery, 'id' | 'claimToken' | 'host' | 'developerId'>;
