/**
 * One shared copy per distinct string. At scale the same ids and scopes repeat in every entity that names
 * them (an event names its course, program, semester, period, rooms and instructors), and each computed or
 * read copy would otherwise live as long as the entity.
 */
export class StringPool {
  private readonly known = new Map<string, string>();

  /** `atMost`: past it the pool starts again, so a long-running process does not keep every string ever seen. */
  constructor(private readonly atMost = Number.POSITIVE_INFINITY) {}

  /** The pooled copy of `text`, or `text` itself, pooled now. */
  share<T extends string>(text: T): T {
    const known = this.known.get(text);
    if (known !== undefined) return known as T;
    if (this.known.size >= this.atMost) this.known.clear();
    this.known.set(text, text);
    return text;
  }

  /** The pooled value for `name`, computed by `make` the first time. */
  shareComputed(name: string, make: (name: string) => string): string {
    let value = this.known.get(name);
    if (value === undefined) {
      if (this.known.size >= this.atMost) this.known.clear();
      value = make(name);
      this.known.set(name, value);
    }
    return value;
  }
}
