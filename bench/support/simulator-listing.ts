/** What the StarPlan simulator lists, for benches that pick its feeds themselves. */

export interface ListedPlanningUnit {
  id: number;
  startdate: string;
  enddate: string;
}

/** The planning units (`json?m=getpus`; StarPlan's JSON is Latin-1, and the fields read here are ASCII). */
export async function simulatorPlanningUnits(base: string): Promise<ListedPlanningUnit[]> {
  const response = await fetch(`${base}/json?m=getpus`);
  if (!response.ok) throw new Error(`the simulator answered ${response.status} to getpus`);
  return (JSON.parse(Buffer.from(await response.arrayBuffer()).toString('latin1')) as [ListedPlanningUnit[]])[0];
}

/** Every planning group's id, from the simulator's own admin route. */
export async function simulatorGroupIds(base: string): Promise<number[]> {
  const response = await fetch(`${base}/__admin/groups`);
  if (!response.ok) throw new Error(`the simulator answered ${response.status} to __admin/groups`);
  return ((await response.json()) as { pgid: number }[]).map(({ pgid }) => pgid);
}
