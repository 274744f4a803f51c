import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { semesterCalendarUrlResource, syncStatusResource } from '@timetable/contracts/testing';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { captureLogger } from '@timetable/testing';
import { semesterIdOf } from '../src/testing/index.js';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;
let server: ServedModule;

beforeAll(async () => {
  harness = await createSyncHarness(11);
  const service = await harness.service();
  // Not started: the tests run the sync by hand, and its scheduler would run one at start.
  server = await serveModule(service, { name: 'sync', logger: captureLogger('warn').logger, startModule: false });
});
afterAll(async () => {
  await server.close();
  await harness.close();
});

const get = async (path: string) => {
  const response = await fetch(`${server.url}/v1/timetable${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('GET /sync/status', () => {
  it('is empty before the first run', async () => {
    const { status, body } = await get('/sync/status');
    expect(status).toBe(200);
    expect(body).toEqual({ data: { lastFetchedAt: null, currentPu: null, baseUrl: harness.sim.url, lastError: null } });
  });

  it('reports the planning unit and time of the latest fetch', async () => {
    await harness.sync();
    const { body } = await get('/sync/status');
    const data = syncStatusResource.parse(body.data);
    expect(data).toMatchObject({ currentPu: harness.sim.simulator.model.currentPuId, lastError: null });
    expect(Date.now() - Date.parse(data.lastFetchedAt ?? '')).toBeLessThan(60_000);
  });

  it("names the failing pair in lastError, and clears it once the pair succeeds", async () => {
    harness.sim.simulator.misbehave('ical', { failure: 'error', errorText: 'kaputt', times: 1 });
    const { result } = await harness.sync();
    const { body } = await get('/sync/status');
    const data = syncStatusResource.parse(body.data);
    expect(data.lastError).toEqual({
      errorMessage: expect.stringContaining('kaputt'),
      updatedAt: expect.any(String),
      programId: result.errors[0]?.programId,
      semesterId: result.errors[0]?.semesterId,
    });
    await harness.sync();
    expect(syncStatusResource.parse((await get('/sync/status')).body.data).lastError).toBeNull();
  });
});

describe('GET /ical/:semesterId/url', () => {
  it('answers the upstream feed address, not wrapped', async () => {
    const group = [...harness.sim.simulator.model.groups.values()][0]!;
    const { status, body } = await get(`/ical/${semesterIdOf(group.id)}/url`);
    expect(status).toBe(200);
    expect(semesterCalendarUrlResource.parse(body)).toEqual({
      url: `${harness.sim.url}/ical?lan=de&puid=${harness.sim.simulator.model.currentPuId}&type=pg&pgid=${group.id}`,
      splanProgramId: String(group.ogId),
      splanSemesterId: String(group.id),
    });
  });

  it('is 404 for an unknown or malformed semester id', async () => {
    const unknown = await get(`/ical/${semesterIdOf(999_999)}/url`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await get('/ical/not-a-uuid/url')).status).toBe(404);
  });
});
