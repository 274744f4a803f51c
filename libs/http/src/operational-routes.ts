import { Router } from 'express';
import { metricsRegistry } from '@timetable/observability';

/** A dependency /ready consults: a store, a broker, a consumer that must be caught up. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean> | boolean;
}

/** /health says the process lives; /ready says its dependencies answer; /metrics is for Prometheus. */
export function operationalRoutes(checks: ReadinessCheck[]): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          return [name, (await check()) ? 'ok' : 'failing'] as const;
        } catch {
          return [name, 'failing'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) });
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metricsRegistry.contentType);
    res.send(await metricsRegistry.metrics());
  });
  return router;
}
