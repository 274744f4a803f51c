/**
 * `npm run test:containers` (after deploy/podman/build-images.sh): docker-compose.yml under podman, with the
 * images the build named. Runs the image's embedded mode alone, then starts the topology (without Prometheus and Grafana, which no Debian package gives),
 * waits for every service's health check, runs the black-box API suite against the gateway's published port
 * (as scripts/stack/run-black-box.ts does against a process stack), then the restart tests of
 * deploy/podman/test (a service container killed, Kafka restarted, with changes flowing), and tears it all down.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { PROCESS_DEFINITIONS } from '@timetable/standalone';
import { ComposeStack } from './compose-stack.js';
import { podman, repoRoot, serviceContainer } from './podman.js';
import { checkStandalone } from './standalone-check.js';

const PUBLIC_BASE_URL = 'https://timetable.example.edu';
const SUITE = 'services/standalone/test/api';
const RATE_LIMIT_FILE = `${SUITE}/rate-limits.int.test.ts`;
/** The tiers rate-limits.int.test.ts asks of the embedded system. */
const TIGHT_RATE_LIMITS = '3/10s,100/1m,1000/1h';
const TIGHT_REGISTER_LIMITS = '3/1h';
/** The infrastructure, the simulator, then every process of the distributed mode as its definition names it. */
const SERVICES = ['kafka', 'kafka-topics', 'registry', 'postgres', 'redis', 'starplan-sim', ...PROCESS_DEFINITIONS.map((definition) => definition.name)];
const started = Date.now();

function log(message: string): void {
  process.stdout.write(`[test:containers ${Math.round((Date.now() - started) / 1000)}s] ${message}\n`);
}

/** KEY=value lines of the file build-images.sh wrote. */
function imageVariables(): Record<string, string> {
  const file = path.join(repoRoot, '.containers/images.env');
  const text = readFileSync(file, 'utf8');
  return Object.fromEntries(text.split('\n').filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function vitest(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const [gatewayPort, simPort] = [await freePort(), await freePort()];
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const project = `timetable-ct-${process.pid}`;
const images = imageVariables();
log(`the image's embedded mode: ${images.TIMETABLE_IMAGE} standalone`);
await checkStandalone({ image: images.TIMETABLE_IMAGE!, name: `${project}-standalone`, port: await freePort() });
log(`starting compose project ${project}: gateway on ${gatewayUrl}, simulator on 127.0.0.1:${simPort}`);
const stack = await ComposeStack.start({
  project,
  services: SERVICES,
  variables: {
    ...images,
    GATEWAY_PORT: `127.0.0.1:${gatewayPort}`,
    STARPLAN_SIM_PORT: String(simPort),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL,
    RATE_LIMITS: '1000000/1s',
    REGISTER_LIMITS: '1000000/1s',
    SYNC_INTERVAL_SECONDS: '86400',
  },
});
let status = 1;
try {
  const healthy = await stack.waitUntilHealthy();
  log(`every service is healthy: ${healthy.map((container) => container.service).join(', ')}`);
  const files = readdirSync(path.join(repoRoot, SUITE))
    .filter((name) => name.endsWith('.int.test.ts'))
    .map((name) => `${SUITE}/${name}`)
    .filter((file) => file !== RATE_LIMIT_FILE);
  const blackBoxEnv = { BLACK_BOX_BASE_URL: gatewayUrl, BLACK_BOX_PUBLIC_BASE_URL: PUBLIC_BASE_URL };
  status = await vitest(['--project', 'integration', ...files], blackBoxEnv);
  log('the rate-limit file, behind a gateway recreated with its tiers and an emptied Redis');
  await stack.compose(['up', '-d', '--no-deps', 'gateway'], { RATE_LIMITS: TIGHT_RATE_LIMITS, REGISTER_LIMITS: TIGHT_REGISTER_LIMITS });
  await podman(['exec', (await serviceContainer(project, 'redis')).name, 'redis-cli', 'FLUSHALL']);
  await stack.waitUntilHealthy();
  const rateLimits = await vitest(['--project', 'integration', RATE_LIMIT_FILE], blackBoxEnv);
  log('the restart tests, with a sync every two seconds');
  await stack.compose(['up', '-d', '--no-deps', 'sync', 'gateway'], { SYNC_INTERVAL_SECONDS: '2' });
  await stack.waitUntilHealthy();
  const restarts = await vitest(['--project', 'containers'], {
    CONTAINERS_PROJECT: project,
    CONTAINERS_GATEWAY_URL: gatewayUrl,
    CONTAINERS_UPSTREAM_URL: `http://127.0.0.1:${simPort}/splan`,
  });
  status = [status, rateLimits, restarts].find((code) => code !== 0) ?? 0;
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  await stack.showUnhealthyLogs();
  status = 1;
} finally {
  await stack.down().catch((error: Error) => log(`tearing down failed: ${error.message}`));
  log(`done in ${Math.round((Date.now() - started) / 1000)}s; the containers' logs are in ${path.relative(repoRoot, stack.logDir)}`);
}
process.exit(status);
