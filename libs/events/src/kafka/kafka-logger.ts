import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '@timetable/observability';

/** Routes kafkajs' own log lines into pino instead of stdout. */
export function kafkaLogCreator(logger: Logger): logCreator {
  return () => ({ level, log }) => {
    const { message, ...extra } = log;
    const fields = { kafka: extra };
    if (level === logLevel.ERROR) logger.error(fields, message);
    else if (level === logLevel.WARN) logger.warn(fields, message);
    else logger.debug(fields, message);
  };
}
