import { z } from 'zod';

/** Reusable field parsers for environment variables, each with the error an operator needs to see. */
export const port = (fallback: number) =>
  z.coerce.number().int().min(0).max(65535).default(fallback);

export const positiveSeconds = (fallback: number) => z.coerce.number().positive().default(fallback);

export const positiveInteger = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const url = () => z.url({ message: 'must be an absolute URL' });

export const logLevel = () =>
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const commaList = () =>
  z.string().transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item !== ''));

export const timeZone = () =>
  z
    .string()
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, 'must be an IANA time zone such as Europe/Berlin')
    .default(Intl.DateTimeFormat().resolvedOptions().timeZone);

export const secondsList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) => value.split(',').map((item) => Number(item.trim())))
    .refine((list) => list.length > 0 && list.every((n) => Number.isFinite(n) && n >= 0), 'must be comma-separated seconds');
