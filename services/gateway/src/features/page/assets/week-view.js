// The week of the picks as the API's week view gives it: this week, then previous and next ones.
import { api, messageOf } from './api.js';
import { byId, fill, h, say, showError } from './dom.js';
import { formatDay, formatShortDay, formatTime } from './format.js';
import { daysOf, shiftWeek } from './iso-week.js';

const DAY_MS = 86_400_000;

/**
 * @typedef {object} WeekOccurrence
 * @property {string} eventId
 * @property {string} occurrenceDate
 * @property {string} startTime
 * @property {number} durationMin
 * @property {{ title: string, location?: string | null }} originalEvent
 */
/** @typedef {{ week: string, dateRange: { start: string, end: string }, occurrences: WeekOccurrence[] }} Week */

export class WeekView {
  /** The filter query of the picks; empty hides the week. */
  #query = '';
  /** @type {string | null} the label shown; null until the current week answered */
  #label = null;
  /** Answers of older requests are dropped: only the latest one is shown. */
  #request = 0;

  constructor() {
    byId('week-previous', HTMLButtonElement).addEventListener('click', () => this.#shift(-1));
    byId('week-next', HTMLButtonElement).addEventListener('click', () => this.#shift(1));
    byId('week-current', HTMLButtonElement).addEventListener('click', () => this.#load('current'));
  }

  /** @param {string} query */
  show(query) {
    this.#query = query;
    byId('week', HTMLElement).hidden = query === '';
    if (query !== '') void this.#load(this.#label ?? 'current');
  }

  /** @param {number} weeks */
  #shift(weeks) {
    void this.#load(this.#label === null ? 'current' : shiftWeek(this.#label, weeks));
  }

  /** @param {string} label `current` or an ISO week */
  async #load(label) {
    const request = ++this.#request;
    const status = byId('week-status', HTMLElement);
    const error = byId('week-error', HTMLElement);
    showError(error, '');
    say(status, 'Loading the week…');
    try {
      /** @type {Week} */
      const week = await api(`/week/${label}?${this.#query}`);
      if (request !== this.#request) return;
      this.#label = week.week;
      render(week);
      say(status, `${week.occurrences.length} ${week.occurrences.length === 1 ? 'lecture' : 'lectures'} in week ${week.week}.`);
    } catch (failure) {
      if (request !== this.#request) return;
      say(status, '');
      showError(error, messageOf(failure));
    }
  }
}

/** @param {Week} week */
function render(week) {
  const days = daysOf(week.week);
  const first = days[0];
  const last = days[6];
  byId('week-heading', HTMLElement).textContent = first && last ? `Week ${week.week.slice(6)}: ${formatShortDay(first)} to ${formatShortDay(last)}` : `Week ${week.week}`;
  const byDay = days.map(() => /** @type {WeekOccurrence[]} */ ([]));
  const start = Date.parse(week.dateRange.start);
  for (const occurrence of week.occurrences) {
    // Days are 23 to 25 hours long around a change of daylight saving time, hence the rounding.
    byDay[Math.round((Date.parse(occurrence.occurrenceDate) - start) / DAY_MS)]?.push(occurrence);
  }
  fill(byId('week-days', HTMLElement), ...days.map((day, index) => dayBlock(day, byDay[index] ?? [])));
}

/**
 * @param {Date} day
 * @param {WeekOccurrence[]} occurrences
 */
function dayBlock(day, occurrences) {
  const heading = h('h3', {}, formatDay(day));
  if (occurrences.length === 0) return h('section', { class: 'day empty' }, heading, h('p', { class: 'free' }, 'Nothing'));
  return h('section', { class: 'day' }, heading, h('ul', { class: 'occurrences' }, ...occurrences.map(occurrenceItem)));
}

/** @param {WeekOccurrence} occurrence */
function occurrenceItem(occurrence) {
  const start = new Date(occurrence.startTime);
  const end = new Date(start.getTime() + occurrence.durationMin * 60_000);
  return h(
    'li',
    { class: 'occurrence' },
    h('span', { class: 'time' }, h('time', { datetime: occurrence.startTime }, formatTime(start)), '–', h('time', { datetime: end.toISOString() }, formatTime(end))),
    h('span', { class: 'title' }, occurrence.originalEvent.title),
    occurrence.originalEvent.location ? h('span', { class: 'where' }, occurrence.originalEvent.location) : null,
  );
}
