/** CPU time of processes and threads of this machine, read from /proc (Linux). */
import { readFile } from 'node:fs/promises';

/**
 * User + system CPU seconds of the process or thread whose stat file this is (`/proc/<pid>/stat`,
 * `/proc/self/task/<tid>/stat`): utime and stime, in clock ticks (100 a second), after the parenthesised
 * command name. Null when it cannot be read (the process is gone, or runs on another machine).
 */
export async function procCpuSeconds(statFile: string): Promise<number | null> {
  const stat = await readFile(statFile, 'utf8').catch(() => null);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds this process's main thread has used so far: what its other threads (V8's compilers and collector) used is not in it. */
export async function mainThreadCpuSeconds(): Promise<number> {
  const seconds = await procCpuSeconds(`/proc/self/task/${process.pid}/stat`);
  if (seconds === null) throw new Error('cannot read the main thread\'s CPU time from /proc');
  return seconds;
}
