import type { ClientRequest, IncomingMessage } from 'node:http';
import { rawBodyOf } from '@timetable/http';

/**
 * Writes the JSON body the gateway read (and size- and depth-checked) to the service as the bytes it
 * received, rather than serialising the parsed value again: what the service parses is exactly what the
 * client sent, and no body the parser accepted can fail to serialise. The bytes are already decompressed, so
 * the length is theirs and no content coding applies. A request whose body the gateway did not read (not
 * JSON) still has its stream, which the proxy pipes as it is.
 */
export function forwardRawBody(proxyReq: ClientRequest, req: IncomingMessage): void {
  const raw = rawBodyOf(req);
  if (raw === undefined) return;
  proxyReq.removeHeader('content-encoding');
  proxyReq.removeHeader('transfer-encoding');
  proxyReq.setHeader('content-length', raw.length);
  proxyReq.write(raw);
}
