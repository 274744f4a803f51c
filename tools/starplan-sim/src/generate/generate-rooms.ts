/** Campuses and their rooms: shortnames like `A1.05`, a building letter, seats, reservation notes. */
import type { Location, Room } from '../model/types.js';
import type { Random } from './random.js';
import { LOCATIONS, ROOM_KINDS } from './vocabulary.js';

const BUILDINGS_BY_LOCATION: readonly (readonly string[])[] = [
  ['A', 'B', 'C', 'D', 'E', 'H'],
  ['R', 'S', 'W'],
];

export function generateLocations(): Location[] {
  return LOCATIONS.map((location, index) => ({ id: 3 + index, ...location }));
}

export function generateRooms(random: Random, locations: Location[], count: number): Room[] {
  const rooms: Room[] = [];
  const taken = new Set<string>();
  // 40 numbers per floor give the default scales their rooms; larger universities get more numbers per floor,
  // or there would not be enough distinct shortnames (about 1,800) and this loop would never end.
  const numbersPerFloor = Math.max(40, Math.ceil(count / 20));
  let nextId = 40;
  while (rooms.length < count) {
    const locationIndex = random.chance(0.7) ? 0 : 1;
    const location = locations[locationIndex] ?? locations[0];
    if (!location) throw new Error('no locations');
    const building = random.pick(BUILDINGS_BY_LOCATION[locationIndex] ?? ['A']);
    const base = `${building}${random.int(0, 4)}.${String(random.int(1, numbersPerFloor)).padStart(2, '0')}`;
    if (taken.has(base)) continue;
    taken.add(base);
    const kind = random.pick(ROOM_KINDS);
    const aula = random.chance(0.03);
    rooms.push({
      id: nextId,
      shortname: aula ? `${base} (Aula)` : base,
      name: aula ? `${kind.name} der Fachschule` : kind.name,
      seats: random.chance(0.03) ? 0 : random.int(kind.minSeats, kind.maxSeats),
      bshortname: building,
      locationId: location.id,
    });
    nextId += random.int(1, 3);
  }
  return rooms;
}
