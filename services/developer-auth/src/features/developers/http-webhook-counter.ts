import { INTERNAL_ROUTES, type WebhookCounter } from '@timetable/contracts';

export interface HttpWebhookCounterDeps {
  /** WEBHOOKS_URL: the webhook-dispatcher's base URL. */
  webhooksUrl: string;
  /** Default 5 s. */
  timeoutMs?: number;
}

/** Distributed mode: asks the webhook-dispatcher's internal route how many webhooks a developer owns. */
export class HttpWebhookCounter implements WebhookCounter {
  private readonly webhooksUrl: string;
  private readonly timeoutMs: number;

  constructor(deps: HttpWebhookCounterDeps) {
    this.webhooksUrl = deps.webhooksUrl;
    this.timeoutMs = deps.timeoutMs ?? 5_000;
  }

  async countFor(developerId: string): Promise<number> {
    const path = INTERNAL_ROUTES.webhookCount.replace(':developerId', encodeURIComponent(developerId));
    const response = await fetch(new URL(path, this.webhooksUrl), { signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`webhook-dispatcher answered ${response.status} to the webhook count`);
    }
    const body = (await response.json()) as { count?: unknown };
    if (typeof body.count !== 'number') throw new Error('webhook-dispatcher answered without a count');
    return body.count;
  }
}
