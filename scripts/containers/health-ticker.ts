/**
 * Podman runs a container's health check on a systemd timer; this machine kind has no systemd, so without
 * this the checks of docker-compose.yml and of the image would never run and no service would turn healthy.
 * The ticker runs each running container's own check (`podman healthcheck run`) at the check's interval,
 * as the timer would, so `depends_on: condition: service_healthy` and the waits below see real results.
 */
import { podman, projectContainers } from './podman.js';

const TICK_MS = 1_000;

export interface HealthTicker {
  stop(): Promise<void>;
}

export function startHealthTicker(project: string): HealthTicker {
  const lastRun = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const containers = await projectContainers(project).catch(() => []);
      const due = containers.filter(
        (container) =>
          container.status === 'running' && container.healthIntervalMs > 0 && Date.now() - (lastRun.get(container.name) ?? 0) >= container.healthIntervalMs,
      );
      // One at a time, as checks that start a JVM or Node compete for two cores with what they check.
      // A failing check exits non-zero; podman records it either way.
      for (const container of due) {
        lastRun.set(container.name, Date.now());
        await podman(['healthcheck', 'run', container.name], { timeoutMs: 60_000 }).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
