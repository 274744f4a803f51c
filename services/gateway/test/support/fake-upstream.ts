import { Router } from 'express';
import { z } from 'zod';
import { NotFoundError, parseInput, type DeveloperIdentity } from '@timetable/http';
import { developerIdOf, requireDeveloper } from '@timetable/http/testing';

const id = z.uuid();
const deliveriesQuery = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
const webhookInput = z.strictObject({ url: z.url(), secret: z.string().min(16).max(255).optional() });
const registerInput = z.object({ email: z.email().max(254), name: z.string().max(100).optional() });

/**
 * A stand-in for the services, validating like the real ones do: it echoes what identity and headers it
 * saw, so tests can check what the gateway forwarded.
 */
export function fakeUpstream(identity: DeveloperIdentity): Router {
  const router = Router();
  const developer = requireDeveloper(identity);
  router.get('/programs', (req, res) => {
    res.json({ data: [], seen: { developer: identity.read(req.headers), forged: req.headers['x-timetable-developer'] ?? null } });
  });
  router.get('/programs/:id', (req) => {
    throw new NotFoundError('program', req.params.id);
  });
  router.post('/developers/register', (req, res) => {
    const input = parseInput(registerInput, req.body, 'Body');
    res.status(201).json({ data: { email: input.email } });
  });
  router.get('/developers/me', developer, (req, res) => {
    res.json({ data: { id: developerIdOf(res), forged: req.headers['x-timetable-developer-extra'] ?? null } });
  });
  router.get('/webhooks', developer, (_req, res) => {
    res.json({ data: [] });
  });
  router.post('/webhooks', developer, (req, res) => {
    const input = parseInput(webhookInput, req.body, 'Body');
    res.status(201).json({ data: { url: input.url } });
  });
  router.get('/webhooks/:id', developer, (req) => {
    throw new NotFoundError('webhook', String(req.params.id));
  });
  router.get('/webhooks/:id/deliveries', developer, (req, res) => {
    const webhookId = String(req.params.id);
    if (!id.safeParse(webhookId).success) throw new NotFoundError('webhook', webhookId);
    const query = parseInput(deliveriesQuery, req.query, 'Query');
    res.json({ data: [], meta: { total: 0, page: query.page, limit: query.limit, totalPages: 0 } });
  });
  return router;
}
