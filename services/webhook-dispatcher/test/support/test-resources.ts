import { startHarness, type Harness } from './webhook-harness.js';
import { startReceiver, type TestReceiver } from './test-receiver.js';

/** The harnesses and receivers a test file starts, closed together (newest first) by `closeAll`. */
export interface TestResources {
  harness(overrides?: Parameters<typeof startHarness>[0]): Promise<Harness>;
  receiver(reply?: TestReceiver['reply']): Promise<TestReceiver>;
  closeAll(): Promise<void>;
}

export function testResources(): TestResources {
  const cleanup: (() => Promise<void>)[] = [];
  const track = <T extends { close(): Promise<void> }>(started: T): T => {
    cleanup.push(() => started.close());
    return started;
  };
  return {
    harness: async (overrides = {}) => track(await startHarness(overrides)),
    receiver: async (reply) => track(await startReceiver(reply)),
    async closeAll() {
      for (const close of cleanup.splice(0).reverse()) await close();
    },
  };
}
