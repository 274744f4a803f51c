/** `<base>/__admin/*`: lets other processes churn, misbehave, reset and read expectations of a running sim. */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { ChurnError } from '../churn/operations.js';
import type { Simulator } from '../simulator.js';
import { recordFaultSchema } from '../garble/record-faults.js';
import { changeSchema } from './admin-changes.js';
import { integerParam, stringParam } from './query-params.js';

const churnSchema = z.object({ seed: z.number().int(), count: z.number().int().min(1).max(1000).optional() });

const misbehaveSchema = z.object({
  kind: z.string().min(1),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  failure: z.enum(['http500', 'truncate', 'garbage', 'empty', 'error']).optional(),
  errorText: z.string().optional(),
  faults: z.array(recordFaultSchema).min(1).max(1_000).optional(),
  times: z.number().int().min(1).optional(),
});

export function createAdminRouter(simulator: Simulator): Router {
  const router = Router();
  router.use(express.json());

  router.post('/churn', (req, res) => {
    const { seed, count } = churnSchema.parse(req.body);
    res.json({ applied: simulator.churn(seed, count) });
  });

  router.post('/change', (req, res) => {
    const result = simulator.apply(changeSchema.parse(req.body)) ?? null;
    // When the model changed, so a client on the same machine can time what follows from it (bench:e2e).
    res.json({ result, appliedAt: new Date().toISOString() });
  });

  router.get('/misbehave', (_req, res) => {
    res.json(simulator.misbehaviours.list());
  });

  router.post('/misbehave', (req, res) => {
    const { kind, ...behaviour } = misbehaveSchema.parse(req.body);
    simulator.misbehave(kind, behaviour);
    res.status(204).end();
  });

  router.delete('/misbehave', (req, res) => {
    simulator.clearMisbehaviour(stringParam(req.query, 'kind'));
    res.status(204).end();
  });

  router.post('/reset', (_req, res) => {
    simulator.reset();
    res.status(204).end();
  });

  router.get('/groups', (_req, res) => {
    res.json([...simulator.model.groups.values()].map((group) => ({ pgid: group.id, shortname: group.shortname })));
  });

  router.get('/expected', (req, res) => {
    const puId = integerParam(req.query, 'pu') ?? simulator.model.currentPuId;
    const pgid = integerParam(req.query, 'pg');
    if (pgid === undefined) {
      res.status(400).json({ error: 'pg is required' });
      return;
    }
    res.json(simulator.expectedOccurrences(puId, pgid));
  });

  router.use(adminErrors);
  return router;
}

function adminErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (error instanceof z.ZodError) res.status(400).json({ error: z.prettifyError(error) });
  else if (error instanceof ChurnError) res.status(400).json({ error: error.message });
  else next(error);
}
