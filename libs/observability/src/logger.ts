import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Paths pino replaces with "[redacted]": API keys and webhook secrets must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-timetable-identity"]',
  'apiKey',
  'secret',
  '*.apiKey',
  '*.secret',
  '*.*.apiKey',
  '*.*.secret',
];

export interface LoggerSettings {
  name: string;
  level?: string;
  /** Where lines go; tests pass a stream to read them back. Defaults to stdout. */
  destination?: pino.DestinationStream;
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
