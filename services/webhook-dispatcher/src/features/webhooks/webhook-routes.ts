import { Router, type Request } from 'express';
import { deliveriesQuery, recoverInput, webhookCreateInput, webhookUpdateInput } from '@timetable/contracts';
import { developerIdOf, parseInput, requireDeveloper, type DeveloperIdentity } from '@timetable/http';
import { toWebhookResource } from './webhook.js';
import type { WebhookService } from './webhook-service.js';

/** /webhooks*: every route needs a verified developer and acts only on that developer's webhooks. */
export function webhookRoutes(service: WebhookService, identity: DeveloperIdentity): Router {
  const router = Router();
  const developer = requireDeveloper(identity);

  router.post('/webhooks', developer, async (req, res) => {
    const input = parseInput(webhookCreateInput, req.body ?? {});
    const webhook = await service.create(developerIdOf(res), input);
    res.status(201).json({ data: toWebhookResource(webhook) });
  });

  router.get('/webhooks', developer, async (_req, res) => {
    const webhooks = await service.list(developerIdOf(res));
    res.json({ data: webhooks.map(toWebhookResource) });
  });

  router.get('/webhooks/:id', developer, async (req, res) => {
    res.json({ data: toWebhookResource(await service.get(developerIdOf(res), idOf(req))) });
  });

  router.patch('/webhooks/:id', developer, async (req, res) => {
    const developerId = developerIdOf(res);
    // Ownership first: a stranger learns nothing about the webhook from validation messages.
    await service.get(developerId, idOf(req));
    const patch = parseInput(webhookUpdateInput, req.body ?? {});
    res.json({ data: toWebhookResource(await service.update(developerId, idOf(req), patch)) });
  });

  router.delete('/webhooks/:id', developer, async (req, res) => {
    await service.remove(developerIdOf(res), idOf(req));
    res.json({ message: 'Webhook deleted' });
  });

  router.get('/webhooks/:id/deliveries', developer, async (req, res) => {
    const developerId = developerIdOf(res);
    await service.get(developerId, idOf(req));
    const query = parseInput(deliveriesQuery, req.query, 'Query');
    res.json(await service.deliveryPage(developerId, idOf(req), query));
  });

  router.post('/webhooks/:id/test', developer, async (req, res) => {
    await service.queueTest(developerIdOf(res), idOf(req));
    res.status(204).end();
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/redeliver', developer, async (req, res) => {
    const delivery = await service.redeliver(developerIdOf(res), idOf(req), String(req.params.deliveryId));
    res.status(202).json({ data: delivery });
  });

  router.post('/webhooks/:id/recover', developer, async (req, res) => {
    const developerId = developerIdOf(res);
    await service.get(developerId, idOf(req));
    const input = parseInput(recoverInput, req.body ?? {});
    res.status(202).json({ data: { enqueued: await service.recover(developerId, idOf(req), input) } });
  });

  return router;
}

function idOf(req: Request): string {
  return String(req.params.id);
}
