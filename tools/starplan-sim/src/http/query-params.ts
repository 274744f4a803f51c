/** Reading StarPlan's query parameters: ids are integers, anything else counts as missing. */

export type Query = Record<string, unknown>;

export function integerParam(query: Query, name: string): number | undefined {
  const value = query[name];
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) return undefined;
  return Number(value);
}

export function stringParam(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}
