import { createHash } from 'node:crypto';
import { startSimulator } from '@timetable/starplan-sim';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { READ_VERSION, readFeeds, readLists } from '../src/features/upstream-client/read-upstream.js';
import { StarplanClient } from '../src/features/upstream-client/starplan-client.js';
import {
  upstreamLecturer,
  upstreamLocation,
  upstreamPlanningGroup,
  upstreamPlanningUnit,
  upstreamProgram,
  upstreamRoom,
} from '../src/features/upstream-client/upstream-types.js';

describe('READ_VERSION', () => {
  /**
   * What a run asks for (each kind of request, its numbers left out) and the schemas its lists are validated
   * against, per version. A run after a complete one repeats the requests that run made without decoding the
   * lists, so a change that moves this digest must raise READ_VERSION (otherwise the first run after it finds
   * the fingerprint as before and never reads the lists with the new code) and pin the new digest here.
   */
  const READ: Record<number, string> = { 1: '1aa2c2ab8cc70df24bd4a0d461b7fa6ba92118008d273a0f3ef31b460d489729' };

  it('is raised whenever what a run asks for or how it validates a list changes', async () => {
    const today = '2025-11-12';
    const sim = await startSimulator({ seed: 3, today, port: 0 });
    try {
      const client = new StarplanClient({ baseUrl: sim.url, timeZone: 'Europe/Berlin' });
      const { upstream, failures } = await readLists(client, { today, forcedPlanningUnit: sim.simulator.model.currentPuId });
      expect(failures).toEqual([]);
      expect(await readFeeds(client, upstream, { onParsed: () => undefined })).toEqual([]);
      const requests = [...new Set([...upstream.bodies.keys()].map((request) => request.replace(/\d+/g, 'N')))].sort();
      const schemas = [upstreamPlanningUnit, upstreamProgram, upstreamLocation, upstreamRoom, upstreamPlanningGroup, upstreamLecturer].map((schema) =>
        z.toJSONSchema(schema),
      );
      const digest = createHash('sha256').update(JSON.stringify({ requests, schemas })).digest('hex');
      expect({ version: READ_VERSION, digest }, 'what a run asks for or how it validates a list changed: raise READ_VERSION and pin the new digest').toEqual({
        version: READ_VERSION,
        digest: READ[READ_VERSION],
      });
    } finally {
      await sim.stop();
    }
  });
});
