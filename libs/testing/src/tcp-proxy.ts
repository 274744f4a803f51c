import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP hop in front of a real service that a test can cut: `block()` drops every open connection and
 * refuses new ones (as a service that went away would), `unblock()` lets traffic through again. The service
 * itself is never touched, so other test files using it are unaffected.
 */
export class TcpProxy {
  private blocked = false;
  private readonly sockets = new Set<Socket>();

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
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => {
        this.sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
