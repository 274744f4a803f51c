/**
 * Keeps the upstream busy while the sync process idles, for `BENCH_BUSY_UPSTREAM=1 npm run bench:sync`: a
 * process of its own that reads every address a sync run reads, six at a time, pass after pass with a second
 * between passes, until it is told to stop. Then only the sync process has idled before the next step: the
 * upstream (the simulator, on the same two cores) and the machine have not, as a StarPlan serving other
 * clients would not have.
 *
 * Run as a child: BUSY_ADDRESSES=<a JSON file listing the addresses>. On SIGTERM it ends its current pass,
 * prints `{"passes":<n>}` and exits.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { UPSTREAM_CONCURRENCY } from '@timetable/sync';
import { bareFetch } from './bare-fetch.js';

const file = process.env.BUSY_ADDRESSES;
if (!file) throw new Error('BUSY_ADDRESSES must name a JSON file of addresses');
const addresses = JSON.parse(await readFile(file, 'utf8')) as string[];
let stopping = false;
process.once('SIGTERM', () => (stopping = true));
let passes = 0;
while (!stopping) {
  await bareFetch(addresses, UPSTREAM_CONCURRENCY);
  passes += 1;
  await sleep(1000);
}
// For the bench: how many passes this pause saw.
process.stdout.write(`${JSON.stringify({ passes })}\n`);
