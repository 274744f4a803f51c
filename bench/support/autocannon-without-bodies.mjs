/**
 * Loaded into the autocannon child of every load test (`node --import`): response bodies are counted, never
 * decoded. autocannon appends each body chunk to a string, which decodes it as UTF-8, and on a body with
 * umlauts V8 takes its slow path: 190 µs for the 44 kB semester feed against 13 µs for the same bytes in
 * ASCII. So the load generator, not the server, capped
 * every route whose bodies hold non-ASCII text, as real timetables' do. The benchmarks never look at a body (no
 * `expectBody`, `verifyBody` or `onResponse`), so leaving it undecoded changes only what the client costs.
 */
import { createRequire } from 'node:module';

const autocannonRequire = createRequire(createRequire(import.meta.url).resolve('autocannon'));
const PipelinedRequestsQueue = autocannonRequire('./lib/pipelinedRequestsQueue.js');

if (typeof PipelinedRequestsQueue.prototype.addBody !== 'function') {
  throw new Error('autocannon no longer has PipelinedRequestsQueue.addBody: bench/support/autocannon-without-bodies.mjs needs a look');
}
PipelinedRequestsQueue.prototype.addBody = function addBody() {};
