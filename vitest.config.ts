import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under this condition, so tests and
// `npm start` run the code as written, while the built image resolves to dist/.
const conditions = ['@timetable/source', 'module', 'node', 'development|production'];

// Tests that start the whole distributed stack (scripts/stack) as separate processes.
const DISTRIBUTED_TESTS = 'services/standalone/test/distributed/**/*.int.test.ts';
// The fault matrix: private PostgreSQL, Redis, Kafka and registry that its rows stop, restart and break.
const FAULT_TESTS = 'services/standalone/test/faults/**/*.int.test.ts';
// Smoke runs of the benches; those that start a distributed stack run with those tests.
const BENCH_TESTS = 'bench/test/**/*.int.test.ts';
const BENCH_STACK_TESTS = ['bench/test/e2e-latency.int.test.ts', 'bench/test/distributed-throughput.int.test.ts'];
// The page for people in Debian's chromium (`npm run test:browser`); each file starts the embedded system.
const BROWSER_TESTS = 'services/standalone/test/browser/**/*.int.test.ts';

const shared = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@timetable/source'] } },
};

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        ...shared,
        test: {
          name: 'unit',
          include: ['{libs,services,tools}/*/test/**/*.test.ts', 'deploy/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          testTimeout: 10_000,
          // Projects with different worker limits need their own group; units first, as the quick signal.
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...shared,
        test: {
          name: 'integration',
          include: ['{libs,services,tools}/*/test/**/*.int.test.ts', 'deploy/test/**/*.int.test.ts', BENCH_TESTS],
          exclude: [DISTRIBUTED_TESTS, FAULT_TESTS, BROWSER_TESTS, ...BENCH_STACK_TESTS, '**/node_modules/**'],
          globalSetup: ['libs/testing/src/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // A process per service each: run alone (`npm run test:distributed`), not beside the integration files.
        ...shared,
        test: {
          name: 'distributed',
          include: [DISTRIBUTED_TESTS, ...BENCH_STACK_TESTS],
          globalSetup: ['libs/testing/src/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // Against docker-compose.yml under podman, which `npm run test:containers` starts and names in CONTAINERS_*.
        ...shared,
        test: {
          name: 'containers',
          include: ['deploy/podman/test/**/*.test.ts'],
          testTimeout: 900_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 4 },
        },
      },
      {
        // One file at a time, each owning its private services (`npm run test:faults`).
        ...shared,
        test: {
          name: 'faults',
          include: [FAULT_TESTS],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          pool: 'forks',
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
      {
        // A browser and a whole system per file: one file at a time beside nothing else.
        ...shared,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          globalSetup: ['libs/testing/src/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: 'forks',
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
