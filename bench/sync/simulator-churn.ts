/** Has the simulator change about one percent of its events, as a term's ordinary churn between two runs. */

/** The share of events the churn aims to change... */
const CHURN_SHARE = 0.01;
/** ...where one simulator change (a moved, cancelled or added occurrence, a renamed room, ...) changes about two events. */
const EVENTS_PER_CHURN_OPERATION = 2;
/** The simulator applies at most this many changes per request. */
const CHURN_PER_REQUEST = 1000;

/** Returns how many changes the simulator was asked for. */
export async function churnSimulator(adminUrl: string, events: number): Promise<number> {
  const operations = Math.max(1, Math.round((events * CHURN_SHARE) / EVENTS_PER_CHURN_OPERATION));
  for (let done = 0, seed = 1; done < operations; done += CHURN_PER_REQUEST, seed += 1) {
    const response = await fetch(`${adminUrl}/churn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seed, count: Math.min(CHURN_PER_REQUEST, operations - done) }),
    });
    if (!response.ok) throw new Error(`churn answered HTTP ${response.status}`);
  }
  return operations;
}
