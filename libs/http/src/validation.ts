import type { z, ZodError } from 'zod';
import { ValidationError } from './errors.js';

export function validationDetails(error: ZodError): Record<string, unknown> {
  return {
    issues: error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  };
}

/** Parses input with a zod schema, turning failure into a 400 whose message names the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = 'Request'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  throw new ValidationError(`${what} validation failed: ${where}${first?.message ?? 'invalid'}`, validationDetails(result.error));
}
