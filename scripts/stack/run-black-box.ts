/**
 * `npm run test:distributed` (second half): starts a throw-away distributed stack and runs the black-box
 * API suite (services/standalone/test/api) against its gateway through BLACK_BOX_BASE_URL, with the
 * settings the suite gives the embedded system: the public base URL, one sync at start, and read and sign-up
 * limits high enough for files running in parallel from one address. The rate-limit file needs the tight
 * tiers it gives the embedded system, so it runs afterwards, alone, behind a gateway restarted with them.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startStack } from './start-stack.js';
import { infrastructureFromEnv } from './stack-resources.js';
import { repoRoot } from './stack-process.js';

const PUBLIC_BASE_URL = 'https://timetable.example.edu';
const SUITE = 'services/standalone/test/api';
const RATE_LIMIT_FILE = `${SUITE}/rate-limits.int.test.ts`;
/** The tiers rate-limits.int.test.ts asks of the embedded system. */
const TIGHT_RATE_LIMITS = '3/10s,100/1m,1000/1h';
const TIGHT_REGISTER_LIMITS = '3/1h';
const env = process.env;

function runVitest(gatewayUrl: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const vitest = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'integration', ...args], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...env, BLACK_BOX_BASE_URL: gatewayUrl, BLACK_BOX_PUBLIC_BASE_URL: PUBLIC_BASE_URL },
    });
    vitest.once('exit', (code) => resolve(code ?? 1));
  });
}

const stack = await startStack({
  ephemeral: true,
  publicBaseUrl: PUBLIC_BASE_URL,
  env: { LOG_LEVEL: 'info', RATE_LIMITS: '1000000/1s', REGISTER_LIMITS: '1000000/1s', SYNC_INTERVAL_SECONDS: '86400' },
  infrastructure: infrastructureFromEnv(env),
});
let status = 1;
try {
  process.stdout.write(`[black-box] distributed stack ready at ${stack.gatewayUrl} (logs in ${stack.logDir})\n`);
  const files = readdirSync(path.join(repoRoot, SUITE))
    .filter((name) => name.endsWith('.int.test.ts'))
    .map((name) => `${SUITE}/${name}`)
    .filter((file) => file !== RATE_LIMIT_FILE);
  status = await runVitest(stack.gatewayUrl, files);
  // A fresh key prefix: the budget the first run spent must not count against the tight tiers.
  await stack.restart('gateway', {
    RATE_LIMITS: TIGHT_RATE_LIMITS,
    REGISTER_LIMITS: TIGHT_REGISTER_LIMITS,
    REDIS_KEY_PREFIX: `${stack.namespace}:tight:`,
  });
  const rateLimits = await runVitest(stack.gatewayUrl, [RATE_LIMIT_FILE]);
  status = status === 0 ? rateLimits : status;
} finally {
  await stack.stop();
}
process.exit(status);
