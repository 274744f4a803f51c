import { Router } from 'express';
import { z } from 'zod';
import { INTERNAL_ROUTES, type KeyVerifier } from '@timetable/contracts';
import { AppError, parseInput } from '@timetable/http';

const verifyBody = z.object({ apiKey: z.string() });

/** The distributed gateway's way to ask for a key's developer; served only on the service's own port. */
export function internalKeyRoutes(verifier: KeyVerifier): Router {
  const router = Router();
  router.post(INTERNAL_ROUTES.verifyKey, async (req, res) => {
    const { apiKey } = parseInput(verifyBody, req.body, 'Body');
    const verified = await verifier.verify(apiKey);
    // Not NotFoundError: its message would echo the key back.
    if (!verified) throw new AppError(404, 'NOT_FOUND', 'Unknown or inactive API key');
    res.json(verified);
  });
  return router;
}
