import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@timetable/observability';

const STOP_WAIT_MS = 30_000;

/**
 * A process killed without a drain (SIGKILL, OOM) leaves its embedded PostgreSQL running, orphaned, and
 * holding the data directory's lock, so the next start would fail with "postmaster.pid already exists".
 * Before starting, a postmaster of this cluster whose parent is gone (re-parented to init) is stopped
 * (fast shutdown: it rolls back open transactions, like a restart). One that still has a living parent
 * belongs to another running process on the same DATA_DIR, and the start refuses instead of stealing it.
 * Needs /proc (Linux); elsewhere the start simply proceeds.
 */
export async function stopOrphanedPostmaster(clusterDir: string, logger: Logger): Promise<void> {
  const pid = postmasterPid(clusterDir);
  if (pid === undefined || !existsSync(`/proc/${pid}`)) return;
  const parent = parentPid(pid);
  if (parent !== 1) {
    throw new Error(`${clusterDir} is in use: its PostgreSQL (pid ${pid}) belongs to a running process (pid ${parent}); stop that one first`);
  }
  logger.warn({ postmasterPid: pid, clusterDir }, 'a previous process left its PostgreSQL running; stopping it before starting again');
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (existsSync(`/proc/${pid}`)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function postmasterPid(clusterDir: string): number | undefined {
  const file = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Field 4 of /proc/<pid>/stat, after the parenthesised command name (which may contain spaces). */
function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
