import type { Knex } from '@timetable/db';
import { Agent } from 'undici';
import { calendarBodyHash, groupCalendarUrl, jsonBodyHash } from '@timetable/sync/testing';

/**
 * The upstream addresses the sync's last run read, each with the hash it stored for the answer, from what it
 * keeps to skip unchanged answers (`upstream_bodies`: a list request relative to the base URL, or `feed:<pgid>`
 * for a group's feed, whose address also names the planning unit, taken from the programs list request
 * `json?m=getogs&pu=<id>`).
 */
export async function hashesLastRead(knex: Knex, baseUrl: string): Promise<Map<string, string>> {
  const rows: { source: string; body_hash: string }[] = await knex('upstream_bodies').select('source', 'body_hash');
  const programsList = rows.find(({ source }) => source.startsWith('json?m=getogs&'));
  const pu = programsList === undefined ? null : new URLSearchParams(programsList.source.slice('json?'.length)).get('pu');
  if (pu === null) throw new Error('the last run read no programs list, so its feeds\' planning unit is unknown');
  return new Map(
    rows.map(({ source, body_hash: hash }) => [
      source.startsWith('feed:') ? groupCalendarUrl(baseUrl, Number(pu), Number(source.slice('feed:'.length))) : `${baseUrl}/${source}`,
      hash,
    ]),
  );
}

/**
 * A plain client fetching what the upstream answers: GET every address through undici's dispatch API,
 * `concurrency` at a time (the sync's), and keep each body's bytes, nothing else: the least a client can do
 * to read the same answers. With `hash`, it also hashes each answer as the sync does to know that it did not
 * change (a feed without its UID and DTSTAMP lines, salted with the time zone; a list whole): the least a
 * re-sync can do without validators. Returns the bytes read.
 */
export interface HashOptions {
  /** The sync's time zone, which salts a feed's hash. */
  timeZone: string;
  /** Called with each answer's hash (to check them against the sync's; not while measuring). */
  onHash?: (address: string, hash: string) => void;
}

export async function bareFetch(addresses: readonly string[], concurrency: number, hash?: HashOptions): Promise<number> {
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
          if (hash) {
            const hashed = hashLikeTheSync(address, answer, hash.timeZone);
            hash.onHash?.(address.href, hashed);
          }
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

function hashLikeTheSync(address: URL, { bytes, contentType }: Answer, timeZone: string): string {
  return address.pathname.endsWith('/ical') ? calendarBodyHash(bytes, contentType, timeZone) : jsonBodyHash(bytes, contentType);
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
