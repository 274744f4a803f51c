import type { Router } from 'express';
import { developersApi } from '@timetable/contracts';
import { contractRouter, type DeveloperIdentity } from '@timetable/http';
import type { DeveloperService } from './developer-service.js';

/** /developers/register (anonymous), /developers/me, regenerate-key and deactivate (key required). */
export function developersRoutes(service: DeveloperService, identity: DeveloperIdentity): Router {
  return contractRouter(
    developersApi,
    {
      async register({ body, res }) {
        const { developer, apiKey } = await service.register(body());
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
      },
      async account({ developerId, res }) {
        const { developer, webhooks } = await service.account(developerId);
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
      },
      async regenerateKey({ developerId, res }) {
        const key = await service.regenerateKey(developerId);
        res.json({ data: key, message: 'API key regenerated. The previous key no longer works.' });
      },
      async deactivate({ developerId, res }) {
        await service.deactivate(developerId);
        res.json({ message: 'Developer account deactivated' });
      },
    },
    { identity },
  );
}
