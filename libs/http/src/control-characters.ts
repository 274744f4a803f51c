import type { z } from 'zod';
import { toleratesControlCharacters } from '@timetable/contracts';
import { ValidationError } from './errors.js';

/**
 * Unicode's control characters (general category Cc): the C0 controls U+0000-U+001F (NUL, tab and line
 * breaks among them), DEL U+007F and the C1 controls U+0080-U+009F. None belongs in a query parameter or a
 * body string of this API; PostgreSQL cannot store NUL at all, and C1 controls in text are almost always
 * mis-decoded bytes.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;
const REFUSAL = 'must not contain control characters';

type Path = (string | number)[];

/**
 * Refuses a control character in any query parameter, declared or not, except in a parameter whose contract
 * fixes the answer to a malformed value (`toleratingControlCharacters`).
 */
export function refuseControlCharactersInQuery(schema: z.ZodObject | undefined, query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (toleratesControlCharacters(schema?.shape[name] as z.ZodType | undefined)) continue;
    if (CONTROL_CHARACTER.test(name) || controlCharacterPath(value) !== undefined) throw refusal('Query', [name]);
  }
}

/** Refuses a control character in any string of a JSON body, key or value, however deep. */
export function refuseControlCharactersInBody(body: unknown): void {
  const path = controlCharacterPath(body);
  if (path !== undefined) throw refusal('Body', path);
}

interface Visit {
  value: unknown;
  key?: string | number;
  parent?: Visit;
}

/**
 * The path of a string or object key holding a control character; undefined when there is none. Walked with a stack of its own, each entry pointing at its parent, so neither the call
 * stack nor the cost of building paths grows with the nesting depth.
 */
export function controlCharacterPath(value: unknown): Path | undefined {
  const pending: Visit[] = [{ value }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const current = visit.value;
    if (typeof current === 'string') {
      if (CONTROL_CHARACTER.test(current)) return pathOf(visit);
    } else if (current !== null && typeof current === 'object') {
      const entries: [string | number, unknown][] = Array.isArray(current) ? current.map((item, index) => [index, item]) : Object.entries(current);
      for (const [key] of entries) if (typeof key === 'string' && CONTROL_CHARACTER.test(key)) return pathOf({ value: key, key, parent: visit });
      for (let index = entries.length - 1; index >= 0; index -= 1) pending.push({ value: entries[index]![1], key: entries[index]![0], parent: visit });
    }
  }
  return undefined;
}

function pathOf(visit: Visit): Path {
  const path: Path = [];
  for (let step: Visit | undefined = visit; step?.key !== undefined; step = step.parent) path.push(step.key);
  return path.reverse();
}

function refusal(part: 'Query' | 'Body', path: Path): ValidationError {
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  return new ValidationError(`${part} validation failed: ${where}${REFUSAL}`, { issues: [{ path: path.join('.'), message: REFUSAL }] });
}
