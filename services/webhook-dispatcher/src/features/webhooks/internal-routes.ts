import { Router } from 'express';
import { INTERNAL_ROUTES, type WebhookCounter } from '@timetable/contracts';

/** Service-to-service only (never routed by the gateway): developer-auth's `_count.webhooks`. */
export function internalWebhookRoutes(counter: WebhookCounter): Router {
  const router = Router();
  router.get(INTERNAL_ROUTES.webhookCount, async (req, res) => {
    const developerId = String(req.params.developerId);
    res.json({ count: await counter.countFor(developerId) });
  });
  return router;
}
