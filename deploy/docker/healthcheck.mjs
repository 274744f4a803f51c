// Docker HEALTHCHECK: exits 0 when the process's liveness endpoint answers 2xx within the timeout.
// The slim Node image has no curl, so this uses Node's own fetch.
const url = process.env.HEALTHCHECK_URL || `http://127.0.0.1:${process.env.PORT ?? '3000'}/health`;

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
