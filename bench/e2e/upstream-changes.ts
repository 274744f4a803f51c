/** bench:e2e making changes upstream: picking a lecture in the StarPlan simulator and renaming it. */
import type { RunningStack } from '../../scripts/stack/start-stack.js';

/** A StarPlan list from the simulator: ISO-8859-1 JSON, the items wrapped as `[[...]]`. */
async function upstreamList<T>(stack: RunningStack, query: string): Promise<T[]> {
  const response = await fetch(`${stack.upstreamBaseUrl}/json?${query}`, { signal: AbortSignal.timeout(30_000) });
  const payload = JSON.parse(new TextDecoder('latin1').decode(await response.arrayBuffer())) as unknown;
  const items = Array.isArray(payload) && Array.isArray(payload[0]) ? (payload[0] as T[]) : undefined;
  if (!items) throw new Error(`the simulator answered ${query} with ${JSON.stringify(payload).slice(0, 200)}`);
  return items;
}

/** A lecture the simulator lists under a program (so sync mirrors it as a course). */
export async function pickLecture(stack: RunningStack): Promise<{ id: number; name: string }> {
  const [unit] = await upstreamList<{ id: number }>(stack, 'm=getpus');
  if (!unit) throw new Error('the simulator lists no planning unit');
  for (const program of await upstreamList<{ id: number }>(stack, `m=getogs&pu=${unit.id}`)) {
    const groups = await upstreamList<{ lectures: { id: number; name: string }[] }>(stack, `m=getPgsExt&pu=${unit.id}&og=${program.id}`);
    const lecture = groups.flatMap((group) => group.lectures)[0];
    if (lecture) return lecture;
  }
  throw new Error('the simulator lists no lecture');
}

/** Renames the lecture in the simulator; resolves with the instant the simulator says the model changed. */
export async function renameLecture(stack: RunningStack, lectureId: number, name: string): Promise<number> {
  const response = await fetch(`${stack.upstreamBaseUrl}/__admin/change`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'renameLecture', args: { lectureId, name } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`__admin/change answered ${response.status}: ${text}`);
  const appliedAt = Date.parse((JSON.parse(text) as { appliedAt?: string }).appliedAt ?? '');
  if (Number.isNaN(appliedAt)) throw new Error(`__admin/change did not say when it applied the change: ${text}`);
  return appliedAt;
}
