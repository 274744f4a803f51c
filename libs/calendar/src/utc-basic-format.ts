// The RFC 5545 UTC date-time form shared by RRULE UNTIL and iCal properties.

/** '20260329T013000Z' for 2026-03-29T01:30:00.000Z; milliseconds are dropped. */
export function formatUtcBasic(instant: Date): string {
  const iso = instant.toISOString();
  if (iso.length !== 24) throw new RangeError(`Instant outside years 0000-9999: ${iso}`);
  return (
    iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + 'T' + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19) + 'Z'
  );
}
