/**
 * The abort signal of one attempt, in the EventEmitter form undici's `request` accepts beside AbortSignal
 * (`aborted`, `reason`, `once`/`on`, `removeListener`). An AbortController is an EventTarget: creating one
 * and adding and removing undici's listener cost more per attempt than the rest of the attempt's own
 * bookkeeping, for a signal that fires only on a timeout or at shutdown.
 */
export class AttemptSignal {
  aborted = false;
  reason: Error | undefined;
  private listeners: (() => void)[] = [];

  on(event: string, listener: () => void): this {
    if (event === 'abort') this.listeners.push(listener);
    return this;
  }

  once(event: string, listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(event: string, listener: () => void): this {
    if (event === 'abort') this.listeners = this.listeners.filter((each) => each !== listener);
    return this;
  }

  /** Fires the listeners once; a second call does nothing. */
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
