// Free rooms: a day, a time window, a building and a size give the rooms with nothing booked then.
import { api, messageOf } from './api.js';
import { byId, fill, h, say, showError } from './dom.js';
import { formatDateTime, formatTime, toLocalInputValue } from './format.js';

const QUARTER_HOUR_MS = 15 * 60_000;
const DEFAULT_WINDOW_MS = 90 * 60_000;
const MORNING_HOUR = 8;

export function startFreeRoomsView() {
  presetWindow();
  byId('free-rooms-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void findFreeRooms();
  });
}

/** The buildings come from the room list; asked once, when the view is first opened. */
let buildingsLoaded = false;
export async function loadBuildings() {
  if (buildingsLoaded) return;
  buildingsLoaded = true;
  try {
    const { data: rooms } = await api('/rooms');
    const buildings = [...new Set(rooms.map((/** @type {{ building: string }} */ room) => room.building))].sort();
    byId('free-building', HTMLSelectElement).append(...buildings.map((building) => h('option', { value: building }, building)));
  } catch (failure) {
    buildingsLoaded = false;
    showError(byId('free-rooms-error', HTMLElement), messageOf(failure));
  }
}

/**
 * The next quarter hour and 90 minutes after it; late in the evening, when that window would run past
 * midnight (a window is one day's, so its end would read as before its start), tomorrow morning instead.
 */
function presetWindow() {
  let from = new Date(Math.ceil(Date.now() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
  let to = new Date(from.getTime() + DEFAULT_WINDOW_MS);
  if (to.getDate() !== from.getDate()) {
    from = new Date(from.getFullYear(), from.getMonth(), from.getDate() + 1, MORNING_HOUR);
    to = new Date(from.getTime() + DEFAULT_WINDOW_MS);
  }
  const [day, fromTime] = toLocalInputValue(from).split('T');
  byId('free-date', HTMLInputElement).value = day ?? '';
  byId('free-from', HTMLInputElement).value = fromTime ?? '';
  byId('free-to', HTMLInputElement).value = toLocalInputValue(to).slice(11);
}

async function findFreeRooms() {
  const status = byId('free-rooms-status', HTMLElement);
  const error = byId('free-rooms-error', HTMLElement);
  const day = byId('free-date', HTMLInputElement).value;
  const from = new Date(`${day}T${byId('free-from', HTMLInputElement).value}`);
  const to = new Date(`${day}T${byId('free-to', HTMLInputElement).value}`);
  const query = new URLSearchParams({ from: iso(from), to: iso(to) });
  const building = byId('free-building', HTMLSelectElement).value;
  const capacity = byId('free-capacity', HTMLInputElement).value;
  if (building) query.set('building', building);
  if (capacity) query.set('minCapacity', capacity);
  showError(error, '');
  say(status, 'Looking for free rooms…');
  try {
    const { data } = await api(`/rooms/free?${query}`);
    renderRooms(data.rooms, `${formatDateTime(data.period.from)} to ${formatTime(data.period.to)}`);
    say(status, `${data.rooms.length} ${data.rooms.length === 1 ? 'room is' : 'rooms are'} free.`);
  } catch (failure) {
    say(status, '');
    byId('free-rooms-table', HTMLTableElement).hidden = true;
    showError(error, messageOf(failure));
  }
}

/**
 * An invalid date is sent as it is typed, so the API's own message explains it.
 * @param {Date} date
 */
function iso(date) {
  return Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString();
}

/**
 * @param {{ name: string, building: string, campus: string, capacity: number }[]} rooms
 * @param {string} period
 */
function renderRooms(rooms, period) {
  byId('free-rooms-caption', HTMLElement).textContent = `Free ${period}`;
  const cell = (/** @type {string} */ label, /** @type {string | number} */ value) => h('td', { 'data-label': label }, value);
  fill(
    byId('free-rooms-body', HTMLElement),
    ...rooms.map((room) => h('tr', {}, h('th', { scope: 'row' }, room.name), cell('Building', room.building), cell('Campus', room.campus), cell('Seats', room.capacity))),
  );
  byId('free-rooms-table', HTMLTableElement).hidden = rooms.length === 0;
}
