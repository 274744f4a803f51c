/**
 * Sync at scale: for each scale of BENCH_SCALES (default 10,100), the first sync of the simulator university
 * (time and peak RSS), two unchanged re-syncs (their time as a share of the first's) and a re-sync after about
 * one percent of the events changed (bench/sync/one-scale.ts). Each scale runs in a child process of its own,
 * started with the sync's Node options as deployed, so its RSS is the sync's alone and not inherited by the
 * next scale; the simulator runs in a further process. The sync writes to a fresh database dropped after.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SYNC_NODE_OPTIONS } from '@timetable/sync';
import { resultsDir } from './support/results-dir.js';
import { benchOneScale } from './sync/one-scale.js';
import { describeScale, type ScaleReport } from './sync/scale-report.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const RESULT_PREFIX = 'SYNC_SCALE_RESULT ';
/**
 * What each scale's process runs with: --expose-gc (each step starts after a full collection, so its peak is
 * less of what earlier steps left), the sync's Node options as deployed (its heap cap), and this process's own
 * (tsx).
 */
const SYNC_PROCESS_OPTIONS = ['--expose-gc', ...SYNC_NODE_OPTIONS, ...process.execArgv];

async function benchInChild(scale: number): Promise<ScaleReport> {
  const child = spawn(process.execPath, [...SYNC_PROCESS_OPTIONS, import.meta.filename], {
    cwd: repoRoot,
    env: { ...process.env, BENCH_ONE_SCALE: String(scale) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const line = output.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
  if (code !== 0 || !line) throw new Error(`scale ${scale} failed (exit ${code}):\n${output}`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ScaleReport;
}

/** HEAD, and whether the working tree differed from it, when the run started. */
function codeVersion(): { commit: string | null; uncommittedChanges: boolean | null } {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    return { commit: git('rev-parse', 'HEAD'), uncommittedChanges: git('status', '--porcelain').length > 0 };
  } catch {
    return { commit: null, uncommittedChanges: null };
  }
}

const one = process.env.BENCH_ONE_SCALE;
if (one !== undefined) {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(await benchOneScale(Number(one)))}\n`);
} else {
  const scales = (process.env.BENCH_SCALES ?? process.env.BENCH_SCALE ?? '10,100').split(',').map((scale) => Number(scale.trim()));
  if (scales.some((scale) => !(scale > 0))) throw new Error(`BENCH_SCALES must list positive numbers, got ${process.env.BENCH_SCALES}`);
  const measuredCode = codeVersion();
  process.stdout.write(`sync process options as deployed (SYNC_NODE_OPTIONS): ${SYNC_NODE_OPTIONS.join(' ')}\n`);
  const reports: ScaleReport[] = [];
  for (const scale of scales) {
    const report = await benchInChild(scale);
    reports.push(report);
    process.stdout.write(`${describeScale(report)}\n`);
  }
  process.stdout.write(
    'targets: scale 10 first sync <= 10 s and <= 400 MB RSS; scale 100 first sync <= 120 s and <= 512 MB RSS, an unchanged re-sync <= 10 % of the first\n',
  );
  await mkdir(resultsDir, { recursive: true });
  const result = { measuredAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length, ...measuredCode, syncProcessOptions: SYNC_PROCESS_OPTIONS, scales: reports };
  await writeFile(path.join(resultsDir, 'sync-scale.json'), `${JSON.stringify(result, null, 2)}\n`);
}
