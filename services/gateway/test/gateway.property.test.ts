import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectDocumentedAnswer, randomRequest } from './support/random-requests.js';
import { DEVELOPER_ID, startTestGateway, VALID_KEY, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ rateLimits: '100000/1s' });
});
afterAll(() => gateway.close());

describe('any request to the gateway (fake services)', () => {
  it('gets a documented status, the error envelope on failures, and never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(randomRequest(VALID_KEY, '00000000-0000-4000-8000-000000000001'), (input) =>
        expectDocumentedAnswer(gateway.origin, input, DEVELOPER_ID),
      ),
      { numRuns: 300 },
    );
  }, 60_000);
});
