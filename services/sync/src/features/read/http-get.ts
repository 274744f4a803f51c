/**
 * One GET through undici's dispatch API, collecting the answer's bytes as they arrive: a run is mostly
 * requests, and undici's `request` builds a response stream, a promise wrapper and (with a timeout) an abort
 * signal for each of them, which cost more than the answer's own bytes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

export interface HttpAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  bytes: Uint8Array;
}

/** Why a GET did not produce an answer; `headersReceived` tells a body cut short from no answer at all. */
export class HttpGetError extends Error {
  constructor(
    message: string,
    readonly headersReceived: boolean,
  ) {
    super(message);
  }
}

/** The answer was, or announced it would be, larger than the GET may read: asking again would not help. */
export class AnswerTooLargeError extends HttpGetError {}

export interface HttpGetOptions {
  timeoutMs: number;
  /** What a GET that runs out of time fails with: a redirect's hop names the whole GET's timeout. */
  timeoutMessage?: string;
  /** The most bytes of body read; a larger answer is cut off and fails (UPSTREAM_MAX_BODY_BYTES). */
  maxBodyBytes: number;
}

export function httpGet(dispatcher: Dispatcher, url: URL, headers: Record<string, string>, options: HttpGetOptions): Promise<HttpAnswer> {
  const { timeoutMs, timeoutMessage = `timed out after ${timeoutMs} ms`, maxBodyBytes } = options;
  return new Promise((resolve, reject) => {
    const exchange = new CollectingExchange(
      maxBodyBytes,
      (answer) => {
        clearTimeout(timer);
        resolve(answer);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
    // Settled only by undici's callbacks or by the cut, both of which come after this line.
    const timer = setTimeout(() => exchange.cut(new Error(timeoutMessage)), timeoutMs);
    dispatcher.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers }, exchange);
  });
}

class CollectingExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private cutShort: Error | undefined;

  constructor(
    private readonly maxBodyBytes: number,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: HttpGetError) => void,
  ) {}

  /**
   * Ends the GET now and stops its exchange. Settled first: a request still waiting for a connection has no
   * controller yet (it is aborted when undici starts it, so it is never sent).
   */
  cut(reason: Error): void {
    if (this.settled) return;
    this.cutShort = reason;
    this.onResponseError(undefined, reason);
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cutShort) controller.abort(this.cutShort);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // A 1xx (102 Processing, 103 Early Hints) is not the answer: the GET still waits for it.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    // A Content-Length over the limit is refused before a byte of the body is read.
    const announced = Number(headers['content-length']);
    if (announced > this.maxBodyBytes) this.cutTooLarge(`announced ${announced} bytes`);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.size > this.maxBodyBytes) {
      this.cutTooLarge(`sent more than ${this.maxBodyBytes} bytes`);
      return;
    }
    this.chunks.push(chunk);
  }

  private cutTooLarge(what: string): void {
    this.chunks.length = 0;
    this.cut(new AnswerTooLargeError(`answer too large: ${what}, at most ${this.maxBodyBytes} are read (UPSTREAM_MAX_BODY_BYTES)`, true));
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
    this.resolve({ statusCode: this.statusCode, headers: this.headers, bytes });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    const reason = this.cutShort ?? error;
    this.reject(reason instanceof AnswerTooLargeError ? reason : new HttpGetError(reason.message, this.statusCode !== 0));
  }
}
