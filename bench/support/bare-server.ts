/** The baseline of bench/README.md: a plain node:http server answering every request with fixed bytes. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedResponse {
  body: Buffer;
  contentType: string;
}

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export async function startBareServer(response: CapturedResponse): Promise<BareServer> {
  const headers = { 'Content-Type': response.contentType, 'Content-Length': String(response.body.length) };
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(response.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Fetches a route once and keeps exactly the bytes and content type it answered with. */
export async function captureResponse(url: string): Promise<CapturedResponse> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
}
