import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from './webhook-harness.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Json;
}

/** Answers a request: status and body, or 'hang' to never answer. */
export type Reply = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

/** A real HTTP subscriber on 127.0.0.1 that records what it received and answers as scripted. */
export interface TestReceiver {
  url: string;
  host: string;
  received: ReceivedRequest[];
  /** TCP connections accepted, and the most requests and connections it had open at once. */
  connections: number;
  maxConcurrentRequests: number;
  maxOpenConnections: number;
  reply: (request: ReceivedRequest, index: number) => Reply;
  close(): Promise<void>;
}

export async function startReceiver(reply: TestReceiver['reply'] = () => ({ status: 200, body: 'ok' })): Promise<TestReceiver> {
  const hanging: ServerResponse[] = [];
  const receiver: TestReceiver = {
    url: '',
    host: '',
    received: [],
    connections: 0,
    maxConcurrentRequests: 0,
    maxOpenConnections: 0,
    reply,
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  let openRequests = 0;
  let openConnections = 0;
  const server = createServer((req, res) => {
    openRequests += 1;
    receiver.maxConcurrentRequests = Math.max(receiver.maxConcurrentRequests, openRequests);
    res.once('close', () => {
      openRequests -= 1;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body: rawBody ? JSON.parse(rawBody) : undefined };
      receiver.received.push(request);
      const answer = receiver.reply(request, receiver.received.length - 1);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      setTimeout(() => {
        res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  server.on('connection', (socket) => {
    receiver.connections += 1;
    openConnections += 1;
    receiver.maxOpenConnections = Math.max(receiver.maxOpenConnections, openConnections);
    socket.once('close', () => {
      openConnections -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hook`;
  receiver.host = `127.0.0.1:${port}`;
  return receiver;
}
