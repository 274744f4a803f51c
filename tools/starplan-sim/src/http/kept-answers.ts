/**
 * Answers kept for the model version they were built from. Every answer depends only on the model and the
 * query, so an answer built for the current version is the answer; a new version drops them all. Bounded by
 * size: once full, new answers are built and served but not kept, so a client asking for ever new queries
 * costs memory only up to the limit, and a client that reads the same answers in the same order every time
 * (a sync) still finds the first of them kept rather than a cache emptied by its own sweep.
 */
export class KeptAnswers<T> {
  private readonly answers = new Map<string, T>();
  private keptFor: string | undefined;
  private size = 0;

  constructor(
    private readonly limit: number,
    private readonly sizeOf: (answer: T) => number,
  ) {}

  /** The answer to `key` at `version`: kept, or built now (and kept while there is room). */
  get(version: string, key: string, build: () => T): T {
    if (version !== this.keptFor) {
      this.answers.clear();
      this.size = 0;
      this.keptFor = version;
    }
    const kept = this.answers.get(key);
    if (kept !== undefined) return kept;
    const answer = build();
    const size = this.sizeOf(answer);
    if (this.size + size <= this.limit) {
      this.answers.set(key, answer);
      this.size += size;
    }
    return answer;
  }
}
