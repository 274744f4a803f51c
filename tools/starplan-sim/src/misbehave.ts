/**
 * Failure injection per request kind (the `m` value, or `ical`; `*` for every request), so tests can drive
 * the consumer's timeouts, retries, safety valve and validation.
 */
import type { RecordFault } from './garble/record-faults.js';

export type Failure = 'http500' | 'truncate' | 'garbage' | 'empty' | 'error';

export interface Misbehaviour {
  /** Wait this long before answering. */
  delayMs?: number;
  /** `http500`: status 500; `truncate`: the body cut in the middle; `garbage`: random bytes under the usual
   * Content-Type; `empty`: `[[]]` or a feed without events; `error`: the 200-with-error body. */
  failure?: Failure;
  errorText?: string;
  /** Faults put into single records of the answer (garble/record-faults.ts). */
  faults?: RecordFault[];
  /** Apply to this many requests, then behave again; unset = until cleared. */
  times?: number;
}

export const WILDCARD_KIND = '*';

export class Misbehaviours {
  private readonly rules = new Map<string, Misbehaviour>();

  set(kind: string, behaviour: Misbehaviour): void {
    this.rules.set(kind, { ...behaviour });
  }

  /** Clears one kind, or everything when no kind is given. */
  clear(kind?: string): void {
    if (kind === undefined) this.rules.clear();
    else this.rules.delete(kind);
  }

  list(): Record<string, Misbehaviour> {
    return Object.fromEntries(this.rules);
  }

  /** The behaviour for one request of this kind; counts down `times`. */
  take(kind: string): Misbehaviour | undefined {
    const key = this.rules.has(kind) ? kind : WILDCARD_KIND;
    const rule = this.rules.get(key);
    if (!rule) return undefined;
    if (rule.times !== undefined) {
      rule.times -= 1;
      if (rule.times <= 0) this.rules.delete(key);
    }
    return rule;
  }
}
