/**
 * Keeps the upstream serving while the sync process idles, for `BENCH_BUSY_UPSTREAM=1 npm run bench:sync`: a
 * process of its own that reads every address a sync run reads, six at a time, one pass and then a second's
 * rest, again and again, until it is told to stop. Then the sync process has idled before the next step, but
 * the upstream (the simulator, on the same two cores) has kept answering, as a StarPlan serving other clients
 * would. It also keeps the machine from idling completely (at scale 10 a pass takes about an eighth of each
 * second and a half), so it separates the sync's own pause from the rest, not the upstream's from the machine's.
 *
 * Run as a child: BUSY_ADDRESSES=<a JSON file listing the addresses>. It prints `{"ready":true}` once its first
 * pass is done; on SIGTERM it finishes the pass under way (not the rest), prints `{"passes":<n>}` and exits.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

// Before anything slow is loaded, so a SIGTERM however early ends the loop rather than the process.
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());

const file = process.env.BUSY_ADDRESSES;
if (!file) throw new Error('BUSY_ADDRESSES must name a JSON file of addresses');
const addresses = JSON.parse(await readFile(file, 'utf8')) as string[];
const { UPSTREAM_CONCURRENCY } = await import('@timetable/sync/testing');
const { bareFetch } = await import('./bare-fetch.js');
let passes = 0;
while (!stop.signal.aborted) {
  await bareFetch(addresses, UPSTREAM_CONCURRENCY);
  passes += 1;
  if (passes === 1) process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  await sleep(1000, undefined, { signal: stop.signal }).catch(() => undefined);
}
// For the bench: how many passes this pause saw.
process.stdout.write(`${JSON.stringify({ passes })}\n`);
