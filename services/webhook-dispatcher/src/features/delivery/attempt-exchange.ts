/**
 * One attempt's request and answer as an undici dispatch handler: the status and the answer's first bytes,
 * without the response stream, promise and abort signal that undici's `request` builds for every request.
 */
import type { Dispatcher } from 'undici';

/** What one HTTP attempt produced; `responseCode` null means no answer (network error, timeout, refusal). */
export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  /** Cut short by the dispatcher's shutdown: not an attempt to count, the delivery goes back to due. */
  interrupted?: boolean;
}

export const RESPONSE_BODY_LIMIT = 1000;
/** Enough bytes for 1000 UTF-16 code units of any UTF-8 text; the rest of a large answer is never read. */
export const RESPONSE_READ_LIMIT_BYTES = 4 * RESPONSE_BODY_LIMIT;

/** Why an attempt was cut short by the dispatcher rather than by the subscriber or the network. */
export type CutShort = { kind: 'timeout'; message: string } | { kind: 'shutdown' };

export class AttemptExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private cutShort: CutShort | undefined;
  private settled = false;

  constructor(
    private readonly settle: (result: AttemptResult) => void,
    private readonly describeError: (error: unknown) => string,
  ) {}

  /**
   * Ends the attempt now (timeout or shutdown) and stops its exchange. A request still waiting for a
   * connection has no controller yet: it is aborted when undici starts it, so it is never sent.
   */
  cut(reason: CutShort): void {
    if (this.settled || this.cutShort) return;
    this.cutShort = reason;
    const error = new Error(reason.kind === 'timeout' ? reason.message : 'Interrupted by shutdown');
    // Settled first: the controller may belong to an exchange undici has already completed, whose abort does nothing.
    this.onResponseError(undefined, error);
    this.controller?.abort(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cutShort) controller.abort(new Error('attempt already ended'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    // A 1xx (102 Processing, 103 Early Hints) is not the answer: the attempt still waits for it.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RESPONSE_READ_LIMIT_BYTES) {
      this.answered(this.body());
      controller.abort(new Error('response body read up to its limit'));
    }
  }

  onResponseEnd(): void {
    this.answered(this.body());
  }

  /** Before the answer's head: a failed attempt (or an interrupted one). After it: the answer counts, without its body. */
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.settled) return;
    if (this.statusCode !== 0) {
      this.answered(null);
      return;
    }
    this.settled = true;
    if (this.cutShort?.kind === 'shutdown') {
      this.settle({ ok: false, responseCode: null, responseBody: null, errorMessage: 'Interrupted by shutdown', interrupted: true });
      return;
    }
    const errorMessage = this.cutShort?.kind === 'timeout' ? this.cutShort.message : this.describeError(error);
    this.settle({ ok: false, responseCode: null, responseBody: null, errorMessage });
  }

  private answered(responseBody: string | null): void {
    if (this.settled) return;
    this.settled = true;
    const ok = this.statusCode >= 200 && this.statusCode < 300;
    this.settle({ ok, responseCode: this.statusCode, responseBody, errorMessage: null });
  }

  private body(): string {
    if (this.chunks.length === 0) return '';
    const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    return bytes.toString('utf8').slice(0, RESPONSE_BODY_LIMIT);
  }
}
