import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSystem } from '@timetable/standalone';
import { expectDocumentedAnswer, randomRequest } from '../../gateway/test/support/random-requests.js';
import { startEmbeddedOnTestDatabase, type EmbeddedOnTestDatabase } from './support/embedded-on-test-database.js';

let embedded: EmbeddedOnTestDatabase;
let system: RunningSystem;
let apiKey: string;
let developerId: string;

beforeAll(async () => {
  embedded = await startEmbeddedOnTestDatabase({ RATE_LIMITS: '100000/1s' });
  system = embedded.system;
  const registered = await fetch(`${system.url}/v1/timetable/developers/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'fuzz@example.edu' }),
  });
  expect(registered.status).toBe(201);
  ({ apiKey, id: developerId } = ((await registered.json()) as { data: { apiKey: string; id: string } }).data);
});

afterAll(async () => {
  await embedded?.stop();
});

describe('any request to the real embedded system', () => {
  it('gets a documented status, the error envelope on failures, and never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(randomRequest(apiKey, developerId), (input) => expectDocumentedAnswer(system.url, input, developerId)),
      { numRuns: 300 },
    );
  }, 120_000);
});
