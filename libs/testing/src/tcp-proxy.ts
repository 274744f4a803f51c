import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP hop in front of a real service that a test can cut: `block()` drops every open connection and
 * refuses new ones (as a service that went away would), `unblock()` lets traffic through again. `stall()`
 * keeps every connection open but forwards nothing, so that each side's requests go unanswered with no close
 * (as behind a network that went silent; the kernels still acknowledge what is sent, so TCP's own timeouts are
 * not exercised), and `resume()` forwards what waited. A side that closes is closed on the other at once when
 * nothing it sent is waiting, and otherwise once `resume()` has forwarded that first. The service itself is
 * never touched, so other test files using it are unaffected.
 */
export class TcpProxy {
  private blocked = false;
  private stalled = false;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[client: Socket, upstream: Socket]>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const proxy = new TcpProxy(server, typeof address === 'object' && address ? address.port : 0);
    server.on('connection', (client) => proxy.pipe(client, targetHost, targetPort));
    return proxy;
  }

  /** `scheme://127.0.0.1:<proxy port><path>` for a URL whose host and port this proxy stands in for. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  }

  block(): void {
    this.blocked = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  unblock(): void {
    this.blocked = false;
  }

  stall(): void {
    if (this.stalled) return;
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  resume(): void {
    if (!this.stalled) return;
    this.stalled = false;
    for (const [client, upstream] of this.pairs) forward(client, upstream);
  }

  async close(): Promise<void> {
    this.block();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pipe(client: Socket, targetHost: string, targetPort: number): void {
    if (this.blocked) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const socket of pair) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.pairs.delete(pair);
        (socket === client ? upstream : client).destroy();
      });
    }
    if (this.stalled) client.pause();
    else forward(client, upstream);
  }
}

function forward(client: Socket, upstream: Socket): void {
  client.pipe(upstream);
  upstream.pipe(client);
}
