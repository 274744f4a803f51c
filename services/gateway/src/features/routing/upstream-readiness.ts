import type { ReadinessCheck } from '@timetable/http';
import type { UpstreamUrls } from './proxy-routes.js';

/** The gateway is ready when every service behind it says so (its own /ready, within two seconds). */
export function upstreamReadiness(urls: UpstreamUrls, timeoutMs = 2_000): ReadinessCheck[] {
  return Object.entries(urls).map(([name, baseUrl]) => ({
    name: `upstream:${name}`,
    async check() {
      const response = await fetch(new URL('/ready', baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      return response.ok;
    },
  }));
}
