import type { KeyVerifier } from '@timetable/contracts';

/** Keys held in a map; records every key it was asked about, so tests can prove it was not called. */
export class FakeKeyVerifier implements KeyVerifier {
  readonly calls: string[] = [];
  private readonly keys = new Map<string, string>();

  issue(apiKey: string, developerId: string): this {
    this.keys.set(apiKey, developerId);
    return this;
  }

  revoke(apiKey: string): void {
    this.keys.delete(apiKey);
  }

  verify(apiKey: string): Promise<{ developerId: string } | null> {
    this.calls.push(apiKey);
    const developerId = this.keys.get(apiKey);
    return Promise.resolve(developerId ? { developerId } : null);
  }
}
