import pg from 'pg';
import { procCpuSeconds } from './proc-cpu.js';

/** Runs `work` with a client of the PostgreSQL server at `serverUrl` (its maintenance database). */
export async function withAdmin(serverUrl: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * CPU seconds used so far by this process and by the PostgreSQL backends serving `database` (read from
 * /proc, so only where the server runs on this machine; null elsewhere). Per delivery, the two show what the
 * dispatcher costs beyond the HTTP a bare loop does.
 */
export async function cpuSeconds(serverUrl: string, database: string): Promise<{ node: number; mainThread: number; postgres: number | null }> {
  const usage = process.cpuUsage();
  const mainThread = await mainThreadCpuSeconds();
  let postgres: number | null = 0;
  await withAdmin(serverUrl, async (client) => {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
    for (const { pid } of rows) {
      const seconds = await procCpuSeconds(`/proc/${pid}/stat`);
      postgres = seconds === null || postgres === null ? null : postgres + seconds;
    }
  });
  return { node: (usage.user + usage.system) / 1e6, mainThread, postgres };
}

/**
 * CPU seconds of this process's main thread alone (the event loop, which bounds the throughput); the process's
 * total also counts V8's garbage collection helpers and libuv's threads.
 */
export async function mainThreadCpuSeconds(): Promise<number> {
  const seconds = await procCpuSeconds(`/proc/self/task/${process.pid}/stat`);
  if (seconds === null) throw new Error('the main thread\'s CPU time is read from /proc, which this machine lacks');
  return seconds;
}
