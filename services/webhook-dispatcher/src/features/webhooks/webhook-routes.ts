import type { Router } from 'express';
import { webhooksApi } from '@timetable/contracts';
import { contractRouter, type DeveloperIdentity } from '@timetable/http';
import { toWebhookResource } from './webhook.js';
import type { WebhookService } from './webhook-service.js';

/**
 * /webhooks*: every route needs a verified developer and acts only on that developer's webhooks. Where a
 * route reads a query or a body, ownership is checked first: a stranger learns nothing about the webhook
 * from validation messages.
 */
export function webhookRoutes(service: WebhookService, identity: DeveloperIdentity): Router {
  return contractRouter(
    webhooksApi,
    {
      async create({ developerId, body, res }) {
        const webhook = await service.create(developerId, body());
        res.status(201).json({ data: toWebhookResource(webhook) });
      },
      async list({ developerId, res }) {
        const webhooks = await service.list(developerId);
        res.json({ data: webhooks.map(toWebhookResource) });
      },
      async get({ developerId, params, res }) {
        res.json({ data: toWebhookResource(await service.get(developerId, params.id)) });
      },
      async update({ developerId, params, body, res }) {
        await service.get(developerId, params.id);
        res.json({ data: toWebhookResource(await service.update(developerId, params.id, body())) });
      },
      async remove({ developerId, params, res }) {
        await service.remove(developerId, params.id);
        res.json({ message: 'Webhook deleted' });
      },
      async deliveries({ developerId, params, query, res }) {
        await service.get(developerId, params.id);
        res.json(await service.deliveryPage(developerId, params.id, query()));
      },
      async test({ developerId, params, res }) {
        await service.queueTest(developerId, params.id);
        res.status(204).end();
      },
      async redeliver({ developerId, params, res }) {
        const delivery = await service.redeliver(developerId, params.id, params.deliveryId);
        res.status(202).json({ data: delivery });
      },
      async recover({ developerId, params, body, res }) {
        await service.get(developerId, params.id);
        res.status(202).json({ data: { enqueued: await service.recover(developerId, params.id, body()) } });
      },
    },
    { identity },
  );
}
