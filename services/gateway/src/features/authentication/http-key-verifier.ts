import { INTERNAL_ROUTES, type KeyVerifier } from '@timetable/contracts';

export interface HttpKeyVerifierDeps {
  /** developer-auth's base URL (DEVELOPER_AUTH_URL). */
  developerAuthUrl: string;
  /** Longest wait for an answer; a timeout is a failed check (503), never an unknown key. */
  timeoutMs?: number;
}

/** Distributed mode: asks developer-auth's internal route; 404 means unknown, revoked or inactive. */
export class HttpKeyVerifier implements KeyVerifier {
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(deps: HttpKeyVerifierDeps) {
    this.url = new URL(INTERNAL_ROUTES.verifyKey, deps.developerAuthUrl).toString();
    this.timeoutMs = deps.timeoutMs ?? 5_000;
  }

  async verify(apiKey: string): Promise<{ developerId: string } | null> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`developer-auth answered ${response.status} to key verification`);
    }
    const body = (await response.json()) as { developerId?: unknown };
    if (typeof body.developerId !== 'string') throw new Error('developer-auth answered without a developerId');
    return { developerId: body.developerId };
  }
}
