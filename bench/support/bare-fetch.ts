import type { Knex } from '@timetable/db';
import { Agent } from 'undici';
import { groupCalendarUrl } from '@timetable/sync';

/**
 * The upstream addresses the sync's last run read, from what it keeps to skip unchanged answers
 * (`upstream_bodies`: a list request relative to the base URL, or `feed:<pgid>` for a group's feed, whose
 * address also names the planning unit, taken from the programs list request `json?m=getogs&pu=<id>`).
 */
export async function addressesLastRead(knex: Knex, baseUrl: string): Promise<string[]> {
  const sources = (await knex('upstream_bodies').select('source')).map((row: { source: string }) => row.source);
  const programsList = sources.find((source) => source.startsWith('json?m=getogs&'));
  const pu = programsList === undefined ? null : new URLSearchParams(programsList.slice('json?'.length)).get('pu');
  if (pu === null) throw new Error('the last run read no programs list, so its feeds\' planning unit is unknown');
  return sources.map((source) =>
    source.startsWith('feed:') ? groupCalendarUrl(baseUrl, Number(pu), Number(source.slice('feed:'.length))) : `${baseUrl}/${source}`,
  );
}

/**
 * A plain client fetching what the upstream answers: GET every address through undici's dispatch API,
 * `concurrency` at a time (the sync's), and keep each body's bytes, nothing else: the least a client can do
 * to read the same answers. Returns the bytes read.
 */
export async function bareFetch(addresses: readonly string[], concurrency: number): Promise<number> {
  const agent = new Agent();
  let next = 0;
  let bytes = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < addresses.length) {
          const address = new URL(addresses[next++]!);
          // Read first: `bytes += await ...` would add to the total as it stood before the wait.
          const read = await getBytes(agent, address);
          bytes += read;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return bytes;
}

function getBytes(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    agent.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET' }, {
      // undici tells this handler API from its older one by onRequestStart.
      onRequestStart: () => undefined,
      onResponseStart: (_controller, statusCode) => void (status = statusCode),
      onResponseData: (_controller, chunk) => void chunks.push(chunk),
      onResponseEnd: () => (status === 200 ? resolve(Buffer.concat(chunks).length) : reject(new Error(`${url.href} answered ${status}`))),
      onResponseError: (_controller, error) => reject(error),
    });
  });
}
