/**
 * An upstream that costs next to nothing to ask again, for `BENCH_UPSTREAM_REPLAY=1 npm run bench:sync`: a
 * proxy in front of the simulator. While recording it forwards every GET and keeps the answer (status,
 * Content-Type, bytes); while replaying it answers an address it knows from memory (one it does not know is
 * forwarded and kept), at about a tenth of what the simulator spends rendering it. It stands for an upstream
 * that keeps its pages and answers at once: what the sync spends against it is the sync's own work, not the
 * upstream's serving rate (the simulator renders each answer, one request at a time).
 *
 * Run as a process of its own (so its CPU is not the sync's): REPLAY_ORIGIN=http://127.0.0.1:<simulator port>
 * REPLAY_PORT=<port>. `POST /__replay/record` and `POST /__replay/replay` switch the mode; it starts recording.
 * `GET /__replay/counts` tells how many GETs it has answered from memory and how many it forwarded, so a bench
 * can show which of its steps the simulator served.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';

/** GETs answered from memory and GETs forwarded to the origin. */
export interface ReplayCounts {
  replayed: number;
  forwarded: number;
}

interface Answer {
  status: number;
  headers: string[];
  body: Buffer;
}

export function replayingUpstream(origin: string): (req: IncomingMessage, res: ServerResponse) => void {
  const agent = new Agent();
  const answers = new Map<string, Answer>();
  let replaying = false;
  const counts: ReplayCounts = { replayed: 0, forwarded: 0 };

  async function forward(url: string): Promise<Answer> {
    const { statusCode, headers, body } = await request(`${origin}${url}`, { dispatcher: agent });
    const bytes = Buffer.from(await body.arrayBuffer());
    const contentType = headers['content-type'];
    const answer: Answer = {
      status: statusCode,
      headers: ['Content-Type', String(contentType ?? 'application/octet-stream'), 'Content-Length', String(bytes.length)],
      body: bytes,
    };
    answers.set(url, answer);
    return answer;
  }

  return (req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && (url === '/__replay/record' || url === '/__replay/replay')) {
      replaying = url === '/__replay/replay';
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && url === '/__replay/counts') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(counts));
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    const known = replaying ? answers.get(url) : undefined;
    if (known) {
      counts.replayed += 1;
      res.writeHead(known.status, known.headers).end(known.body);
      return;
    }
    counts.forwarded += 1;
    forward(url).then(
      (answer) => res.writeHead(answer.status, answer.headers).end(answer.body),
      (error: unknown) => res.writeHead(502, { 'Content-Type': 'text/plain' }).end(String(error)),
    );
  };
}

if (process.env.REPLAY_ORIGIN !== undefined) {
  const server = createServer(replayingUpstream(process.env.REPLAY_ORIGIN));
  server.listen(Number(process.env.REPLAY_PORT ?? 0), '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
