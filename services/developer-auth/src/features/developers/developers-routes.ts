import { Router } from 'express';
import { registerDeveloperBody } from '@timetable/contracts';
import { developerIdOf, parseInput, requireDeveloper, type DeveloperIdentity } from '@timetable/http';
import type { DeveloperService } from './developer-service.js';

/** /developers/register (anonymous), /developers/me, regenerate-key and deactivate (key required). */
export function developersRoutes(service: DeveloperService, identity: DeveloperIdentity): Router {
  const router = Router();
  const withKey = requireDeveloper(identity);

  router.post('/developers/register', async (req, res) => {
    const input = parseInput(registerDeveloperBody, req.body ?? {}, 'Body');
    const { developer, apiKey } = await service.register(input);
    res.status(201).json({
      data: {
        id: developer.id,
        email: developer.email,
        name: developer.name,
        apiKey,
        apiKeyHint: developer.apiKeyHint,
        createdAt: developer.createdAt.toISOString(),
      },
      message: 'Developer registered. Store the API key securely: it is shown only once.',
    });
  });

  router.get('/developers/me', withKey, async (_req, res) => {
    const { developer, webhooks } = await service.account(developerIdOf(res));
    res.json({
      data: {
        id: developer.id,
        email: developer.email,
        name: developer.name,
        apiKeyHint: developer.apiKeyHint,
        isActive: developer.isActive,
        createdAt: developer.createdAt.toISOString(),
        updatedAt: developer.updatedAt.toISOString(),
        _count: { webhooks },
      },
    });
  });

  router.post('/developers/regenerate-key', withKey, async (_req, res) => {
    const key = await service.regenerateKey(developerIdOf(res));
    res.json({ data: key, message: 'API key regenerated. The previous key no longer works.' });
  });

  router.post('/developers/deactivate', withKey, async (_req, res) => {
    await service.deactivate(developerIdOf(res));
    res.json({ message: 'Developer account deactivated' });
  });

  return router;
}
