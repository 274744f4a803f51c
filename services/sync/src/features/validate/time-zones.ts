/** Which TZID values name a zone the calendar code can compute with, and which zone that is. */
import { ianaZoneOfWindowsName } from './windows-zones.js';

/** An IANA name starts with a letter; offsets (`+01:00`), which some runtimes accept as zones, are not names. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;
/** Distinct TZIDs remembered; a feed naming ever new ones starts the memory again rather than growing it. */
const MAX_REMEMBERED = 1_000;

const resolved = new Map<string, string | null>();

/**
 * The canonical IANA zone a TZID names (`europe/berlin` is `Europe/Berlin`), a Windows zone name mapped by
 * CLDR's table, or undefined for a zone the mirror does not know.
 */
export function resolveTimeZone(tzid: string): string | undefined {
  let zone = resolved.get(tzid);
  if (zone === undefined) {
    if (resolved.size >= MAX_REMEMBERED) resolved.clear();
    zone = canonicalZone(tzid.trim()) ?? null;
    resolved.set(tzid, zone);
  }
  return zone ?? undefined;
}

function canonicalZone(tzid: string): string | undefined {
  const windows = ianaZoneOfWindowsName(tzid);
  if (windows !== undefined) return canonicalIanaZone(windows);
  return IANA_NAME.test(tzid) ? canonicalIanaZone(tzid) : undefined;
}

function canonicalIanaZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
