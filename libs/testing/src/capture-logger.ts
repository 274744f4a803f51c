import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@timetable/observability';

/** A real pino logger whose lines tests can read back (for audit lines and redaction checks). */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter((line) => line.trim() !== ''));
      done();
    },
  });
  const logger = createLogger({ name: 'test', level, destination });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
