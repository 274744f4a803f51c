/**
 * Calls between services that are not events. In embedded mode the composition root passes the
 * owning service's implementation directly; in distributed mode an HTTP client calls the owner's
 * internal route (never routed by the gateway, so never public).
 */

/** developer-auth: resolves an API key (already known to start with `spk_`) to its active developer. */
export interface KeyVerifier {
  verify(apiKey: string): Promise<{ developerId: string } | null>;
}

/** webhook-dispatcher: how many webhooks a developer owns, for `/developers/me` `_count.webhooks`. */
export interface WebhookCounter {
  countFor(developerId: string): Promise<number>;
}

export const INTERNAL_ROUTES = {
  /** POST `{apiKey}` -> 200 `{developerId}` or 404. Served by developer-auth. */
  verifyKey: '/internal/keys/verify',
  /** GET -> 200 `{count}`. Served by webhook-dispatcher. */
  webhookCount: '/internal/developers/:developerId/webhook-count',
} as const;
