/**
 * Windows time zone names (`W. Europe Standard Time`, what Outlook-made feeds carry as TZID) to IANA zones,
 * by CLDR's windowsZones table as the Unicode Consortium publishes it (the `cldr-core` package): each Windows
 * zone's golden zone, the mapping for territory `001`.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';

const windowsZonesFile = z.object({
  supplemental: z.object({
    windowsZones: z.object({
      mapTimezones: z.array(z.object({ mapZone: z.object({ _other: z.string(), _type: z.string(), _territory: z.string() }) })),
    }),
  }),
});

const GOLDEN_TERRITORY = '001';

let table: ReadonlyMap<string, string> | undefined;

/** The IANA zone CLDR maps a Windows zone name to, or undefined for a name that is not one. */
export function ianaZoneOfWindowsName(name: string): string | undefined {
  table ??= loadTable();
  return table.get(name);
}

function loadTable(): Map<string, string> {
  const file = windowsZonesFile.parse(createRequire(import.meta.url)('cldr-core/supplemental/windowsZones.json'));
  const golden = new Map<string, string>();
  for (const { mapZone } of file.supplemental.windowsZones.mapTimezones) {
    const [zone] = mapZone._type.split(' ');
    if (mapZone._territory === GOLDEN_TERRITORY && zone) golden.set(mapZone._other, zone);
  }
  return golden;
}
