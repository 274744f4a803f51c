import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local subscriber of the webhook benches. */
export interface Receiver {
  url: string;
  received: number;
  server: Server;
  /** A dead receiver's requests, held unanswered until `answerHeld`. */
  held: ServerResponse[];
}

/** A subscriber that answers 204 at once and counts; `dead` accepts the request and never answers on its own. */
export async function startReceiver(dead = false): Promise<Receiver> {
  const receiver = { url: '', received: 0, held: [] } as unknown as Receiver;
  receiver.server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (dead) {
        receiver.held.push(res);
        return;
      }
      receiver.received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Ends what a dead receiver holds, so the attempts waiting for it end (after a while: their host stays slow). */
export function answerHeld(receiver: Receiver): void {
  for (const res of receiver.held.splice(0)) res.writeHead(204).end();
}

/**
 * Deliveries per second until every live receiver holds `perReceiver` more deliveries than at the start and
 * `run` has returned: a delivery cycle returns once every outcome is written, which counts as its work.
 */
export async function timeUntilDelivered(live: Receiver[], perReceiver: number, run: () => Promise<void>): Promise<number> {
  const before = live.map((receiver) => receiver.received);
  const started = performance.now();
  const running = run();
  while (live.some((receiver, index) => receiver.received - before[index]! < perReceiver)) await new Promise((resolve) => setTimeout(resolve, 5));
  await running;
  const seconds = (performance.now() - started) / 1000;
  return (perReceiver * live.length) / seconds;
}
