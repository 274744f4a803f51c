/**
 * Reads through the gateway while a fault lasts, as clients would, recording every status per path:
 * the rows assert that reads kept being served (or answered 503 in the envelope, never a crash).
 */
export interface ReadProbe {
  stop(): Promise<Record<string, number[]>>;
}

export function startReadProbe(gatewayUrl: string, paths: string[], everyMs = 500): ReadProbe {
  const statuses: Record<string, number[]> = Object.fromEntries(paths.map((path) => [path, []]));
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        paths.map(async (path) => {
          const response = await fetch(`${gatewayUrl}/v1/timetable${path}`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
          await response?.body?.cancel().catch(() => undefined);
          // 0: no answer at all (connection refused or reset), which a served read never is.
          statuses[path]?.push(response?.status ?? 0);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

/** The distinct statuses seen, for compact assertions. */
export function distinct(statuses: Record<string, number[]>): Record<string, number[]> {
  return Object.fromEntries(Object.entries(statuses).map(([path, seen]) => [path, [...new Set(seen)].sort()]));
}
