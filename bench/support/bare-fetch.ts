import type { Knex } from '@timetable/db';
import { Agent } from 'undici';
import { calendarBodyHash, groupCalendarUrl, jsonBodyHash } from '@timetable/sync';

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

/** The time zone the bench's sync runs with, which salts a feed's hash as it does in the sync. */
const SYNC_TIME_ZONE = 'Europe/Berlin';

/**
 * A plain client fetching what the upstream answers: GET every address through undici's dispatch API,
 * `concurrency` at a time (the sync's), and keep each body's bytes, nothing else: the least a client can do
 * to read the same answers. With `hash`, it also hashes each answer as the sync does to know that it did not
 * change (a feed without its UID and DTSTAMP lines, a list whole): the least a re-sync can do without
 * validators. Returns the bytes read.
 */
export async function bareFetch(addresses: readonly string[], concurrency: number, options: { hash?: boolean } = {}): Promise<number> {
  const agent = new Agent();
  let next = 0;
  let bytes = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < addresses.length) {
          const address = new URL(addresses[next++]!);
          // Read first: `bytes += await ...` would add to the total as it stood before the wait.
          const answer = await getAnswer(agent, address);
          if (options.hash) hashLikeTheSync(address, answer);
          bytes += answer.bytes.length;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return bytes;
}

interface Answer {
  contentType: string | null;
  bytes: Buffer;
}

function hashLikeTheSync(address: URL, { bytes, contentType }: Answer): string {
  return address.pathname.endsWith('/ical') ? calendarBodyHash(bytes, contentType, SYNC_TIME_ZONE) : jsonBodyHash(bytes, contentType);
}

function getAnswer(agent: Agent, url: URL): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let contentType: string | null = null;
    agent.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET' }, {
      // undici tells this handler API from its older one by onRequestStart.
      onRequestStart: () => undefined,
      onResponseStart: (_controller, statusCode, headers) => {
        // A 1xx is not the answer, as in the sync's own handler.
        if (statusCode < 200) return;
        status = statusCode;
        const type = headers['content-type'];
        contentType = (Array.isArray(type) ? type[0] : type) ?? null;
      },
      onResponseData: (_controller, chunk) => {
        chunks.push(chunk);
        size += chunk.length;
      },
      onResponseEnd: () => {
        if (status !== 200) return reject(new Error(`${url.href} answered ${status}`));
        // As the sync: one chunk is the body itself, several are joined.
        resolve({ contentType, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
      },
      onResponseError: (_controller, error) => reject(error),
    });
  });
}
