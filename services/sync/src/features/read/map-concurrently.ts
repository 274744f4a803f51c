/**
 * Runs `work` over `items` with at most `limit` in flight, keeping the input order in the result. After the
 * first failure no further item is started, and the call rejects only once the items in flight have ended:
 * a failed run must not leave work going on behind it (a later run would share what it touches).
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = settled.find((outcome) => outcome.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}
