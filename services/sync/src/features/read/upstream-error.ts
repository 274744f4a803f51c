/** Anything that makes an upstream answer unusable: HTTP status, timeout, error body, broken payload. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    /** False for answers a retry cannot fix (an error body, a payload of the wrong shape). */
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}
