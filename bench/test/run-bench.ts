import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Reads a JSON file the bench wrote to its results directory. */
  result<T>(file: string): Promise<T>;
  /** Removes the results directory. */
  cleanup(): Promise<void>;
}

/**
 * Runs `npm run <script> [-- <args>]` as the README documents it, with `env` added to this process's environment
 * (a value of undefined removes a variable) and its results written to a temporary directory, not bench/results.
 */
export async function runBench(script: string, env: Record<string, string | undefined>, args: string[] = []): Promise<BenchRun> {
  const resultsDir = await mkdtemp(path.join(tmpdir(), 'timetable-bench-results-'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, BENCH_RESULTS_DIR: resultsDir };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = spawn('npm', ['run', '-s', script, ...(args.length > 0 ? ['--', ...args] : [])], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return {
    code,
    stdout,
    stderr,
    result: async <T>(file: string) => JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')) as T,
    cleanup: () => rm(resultsDir, { recursive: true, force: true }),
  };
}

/** The number `pattern`'s first group captures in a bench's report, e.g. 2393 in "2393 (2307 to 2568) deliveries/s". */
export function numberIn(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  if (!match?.[1]) throw new Error(`no match for ${pattern} in:\n${text}`);
  return Number(match[1].replace(/,/g, ''));
}
