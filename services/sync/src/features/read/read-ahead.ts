/**
 * What a run learnt of its requests before it read them in full: a run first reads every answer the last one
 * read, hashing only (read-as-stored.ts), and when one of them differs it reads the upstream as usual. The
 * answers received meanwhile are kept here, so that the usual read takes them rather than asking again: each
 * request of a run is made once, with its retries, whichever read made it.
 */
import type { EarlierAnswer, Validators } from './fetch-with-retry.js';
import type { UpstreamError } from './upstream-error.js';

export type AnswerAhead =
  /** The answer as it arrived, not yet checked: decoding it may still find it truncated and ask again. */
  | { kind: 'unchecked'; earlier: EarlierAnswer }
  /** The request failed with every retry it had. */
  | { kind: 'failed'; error: UpstreamError }
  /**
   * Nothing more to read: a group feed that is the one its stored record names (by its hash, or a 304), or a
   * list whose items the client keeps for this hash.
   */
  | { kind: 'known'; bodyHash: string; validators: Validators };

export class ReadAhead {
  private readonly answers = new Map<string, AnswerAhead>();

  set(request: string, answer: AnswerAhead): void {
    this.answers.set(request, answer);
  }

  /** The answer kept for `request` (a request relative to the base URL), let go once taken. */
  take(request: string): AnswerAhead | undefined {
    const answer = this.answers.get(request);
    this.answers.delete(request);
    return answer;
  }
}
