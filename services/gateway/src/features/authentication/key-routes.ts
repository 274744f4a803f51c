/**
 * Which paths (relative to /v1/timetable) need an API key. Matching is case-insensitive and tolerates a
 * trailing slash because Express routing does both: a stricter match here would let `/Developers/me`
 * reach the service without a key check.
 */
const KEY_ROUTE = /^\/(?:developers\/(?:me|regenerate-key|deactivate|usage)\/?|webhooks(?:\/.*)?)$/i;

/** /developers/* and /webhooks*: the routes counted as developer usage and exempt from read limits. */
const DEVELOPER_AREA = /^\/(?:developers(?:\/.*)?|webhooks.*)$/i;

export function isKeyRoute(path: string): boolean {
  return KEY_ROUTE.test(path);
}

export function isDeveloperArea(path: string): boolean {
  return DEVELOPER_AREA.test(path);
}
