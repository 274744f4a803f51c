/**
 * A CPU profile of this process while a piece of work runs (the V8 sampling profiler through node:inspector),
 * written as a `.cpuprofile` (open it in Chrome DevTools or speedscope) and summarised as self time per
 * component: a package under node_modules, a file of this repository, or one of V8's own buckets.
 */
import { Session } from 'node:inspector/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileShare {
  component: string;
  /** Share of the samples in which the process was busy (idle samples excluded). */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  busySamples: number;
  top: ProfileShare[];
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** Which part of the system a sampled function belongs to. */
export function componentOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const file = url.replace(/^file:\/\//, '');
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (packageMatch?.[1]) return packageMatch[1];
  if (file.startsWith('node:')) return `node:${file.slice(5).split('/')[0] ?? ''}`;
  if (file.startsWith(repoRoot)) return path.relative(repoRoot, file);
  return file;
}

export async function profileWhile<T>(file: string, work: () => Promise<T>, top = 15): Promise<{ result: T; summary: ProfileSummary }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(profile));
    return { result, summary: summarise(file, profile, top) };
  } finally {
    session.disconnect();
  }
}

function summarise(file: string, profile: Profile, top: number): ProfileSummary {
  const hits = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const count = node.hitCount ?? 0;
    if (count === 0) continue;
    const component = componentOf(node.callFrame.url, node.callFrame.functionName);
    if (component === '(idle)') continue;
    busy += count;
    hits.set(component, (hits.get(component) ?? 0) + count);
  }
  const shares = [...hits]
    .map(([component, count]) => ({ component, percent: (count / Math.max(busy, 1)) * 100 }))
    .sort((a, b) => b.percent - a.percent)
    .slice(0, top);
  return { file, busySamples: busy, top: shares };
}

export function formatProfile(name: string, summary: ProfileSummary): string {
  const lines = [`profile of ${name} (${summary.busySamples} busy samples, ${path.relative(process.cwd(), summary.file)}):`];
  for (const share of summary.top) lines.push(`  ${share.percent.toFixed(1).padStart(5)} %  ${share.component}`);
  return lines.join('\n');
}
