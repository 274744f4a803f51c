import type { Knex } from '@timetable/db';
import { Agent, request } from 'undici';
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
 * A plain client fetching what the upstream answers: GET every address with undici's `request`,
 * `concurrency` at a time (the sync's), and read each body whole, nothing else. Returns the bytes read. (The
 * sync's own requests go through a dispatch handler that costs less CPU than `request`.)
 */
export async function bareFetch(addresses: readonly string[], concurrency: number): Promise<number> {
  const agent = new Agent();
  let next = 0;
  let bytes = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < addresses.length) {
          const address = addresses[next++]!;
          const { statusCode, body } = await request(address, { dispatcher: agent });
          const read = await body.arrayBuffer();
          if (statusCode !== 200) throw new Error(`${address} answered ${statusCode}`);
          bytes += read.byteLength;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return bytes;
}
