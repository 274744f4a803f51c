/**
 * The least a server can do to answer what the bench's upstream answered, for `npm run bench:upstream`: a bare
 * `node:http` server that sends the bytes and Content-Type each request target was answered with, kept in
 * memory, and 404 to anything else.
 *
 * Run as a child: BARE_PORT, and BARE_ANSWERS (a JSON file of `[target, contentType, file]`, where file holds
 * the bytes).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { requiredSetting } from './required-setting.js';

const listed = JSON.parse(await readFile(requiredSetting('BARE_ANSWERS'), 'utf8')) as [string, string, string][];
const answers = new Map(await Promise.all(listed.map(async ([target, contentType, file]) => [target, { contentType, bytes: await readFile(file) }] as const)));

createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (answer === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': answer.contentType, 'Content-Length': answer.bytes.length }).end(answer.bytes);
}).listen(Number(requiredSetting('BARE_PORT')), '127.0.0.1');
