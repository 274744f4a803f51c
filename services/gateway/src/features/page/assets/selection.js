// The student's picks, kept in the page's URL (so a selection can be bookmarked and shared) in the form the
// API's week views and personal feed take them: courseIds, groupIds (semesters), roomIds, instructorIds.

/** @typedef {import('./catalog.js').Kind} Kind */
/** @typedef {import('./catalog.js').Found} Found */
/** @typedef {'groupIds' | 'courseIds' | 'roomIds' | 'instructorIds'} Filter */

/** @type {Record<Filter, Kind>} */
const KIND_OF_FILTER = { groupIds: 'semester', courseIds: 'course', roomIds: 'room', instructorIds: 'instructor' };
/** @type {Filter[]} */
const FILTERS = ['groupIds', 'courseIds', 'roomIds', 'instructorIds'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The filter a kind selects by; programs have none (picking one picks its semesters).
 * @param {Kind} kind
 * @returns {Filter | null}
 */
export function filterOf(kind) {
  return FILTERS.find((filter) => KIND_OF_FILTER[filter] === kind) ?? null;
}

export class Selection {
  /** @type {Found[]} */
  #picks = [];

  /**
   * The picks a URL's query names, each known only by kind and id until it is described.
   * @param {string} search location.search
   * @returns {{ kind: Kind, id: string }[]}
   */
  static idsIn(search) {
    const query = new URLSearchParams(search);
    return FILTERS.flatMap((filter) =>
      (query.get(filter) ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => UUID.test(id))
        .map((id) => ({ kind: KIND_OF_FILTER[filter], id })),
    );
  }

  get picks() {
    return [...this.#picks];
  }

  get isEmpty() {
    return this.#picks.length === 0;
  }

  /** @param {Found} found */
  has(found) {
    return this.#picks.some((pick) => pick.kind === found.kind && pick.id === found.id);
  }

  /**
   * Adds what is not picked yet; returns whether anything was added.
   * @param {Found[]} found
   */
  add(...found) {
    const fresh = found.filter((candidate) => filterOf(candidate.kind) !== null && !this.has(candidate));
    this.#picks.push(...fresh);
    return fresh.length > 0;
  }

  /** @param {Found} found */
  remove(found) {
    this.#picks = this.#picks.filter((pick) => !(pick.kind === found.kind && pick.id === found.id));
  }

  /** The API's filter query for the picks, e.g. `courseIds=a,b&roomIds=c` (empty when nothing is picked). */
  query() {
    return FILTERS.map((filter) => {
      const ids = this.#picks.filter((pick) => filterOf(pick.kind) === filter).map((pick) => pick.id);
      return ids.length > 0 ? `${filter}=${ids.join(',')}` : '';
    })
      .filter(Boolean)
      .join('&');
  }

  /** Writes the picks into the address bar without a new history entry. */
  writeToUrl() {
    const query = this.query();
    history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
  }
}
