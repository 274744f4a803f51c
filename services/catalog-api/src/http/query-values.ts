const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else in a path is an unknown id, in a query filter it matches nothing. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
