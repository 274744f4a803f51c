/** Runs a simulator on 127.0.0.1 (port 0 = ephemeral) for tests, benchmarks and the embedded demo. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator, type Simulator, type SimulatorOptions } from './simulator.js';

export interface StartSimulatorOptions extends SimulatorOptions {
  port?: number;
  host?: string;
}

export interface RunningSimulator {
  /** The StarPlan base, e.g. `http://127.0.0.1:4010/splan`; `json` and `ical` hang below it. */
  url: string;
  port: number;
  simulator: Simulator;
  stop(): Promise<void>;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const simulator = createSimulator(options);
  const host = options.host ?? '127.0.0.1';
  const server = await listen(simulator, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${simulator.options.basePath}`,
    port,
    simulator,
    stop: () => close(server),
  };
}

function listen(simulator: Simulator, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(simulator.handle);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Closes idle keep-alive connections too, so stop() does not wait for clients to hang up. */
function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
