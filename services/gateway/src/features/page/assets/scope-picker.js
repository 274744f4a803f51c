// A webhook's scope chosen by name: the scope's kind, then one thing of that kind found by searching.
import { messageOf } from './api.js';
import { KINDS, labelOf, searchCatalog } from './catalog.js';
import { byId, fill, h, say } from './dom.js';

/** @typedef {import('./catalog.js').Found} Found */
/** @typedef {import('./catalog.js').Kind} Kind */
/** @typedef {'global' | Kind} Scope */

/** @type {Record<Kind, string>} */
const FILTER_FIELD = {
  program: 'filterProgramId',
  semester: 'filterSemesterId',
  course: 'filterCourseId',
  room: 'filterRoomId',
  instructor: 'filterInstructorId',
};

export class ScopePicker {
  /** @type {Found | null} */
  #chosen = null;
  #select = byId('webhook-scope', HTMLSelectElement);
  #search = byId('scope-search', HTMLInputElement);

  constructor() {
    this.#select.addEventListener('change', () => this.#scopeChanged());
    byId('scope-search-button', HTMLButtonElement).addEventListener('click', () => void this.#find());
    // Enter in the name field searches instead of submitting the webhook form.
    this.#search.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      void this.#find();
    });
  }

  /**
   * @param {Scope} scope
   * @param {Found | null} chosen
   */
  reset(scope, chosen) {
    this.#select.value = scope;
    this.#search.value = '';
    this.#scopeChanged();
    this.#choose(chosen);
  }

  /** The scope fields of a webhook body; throws when a scope needs a choice that was not made. */
  toInput() {
    const scope = /** @type {Scope} */ (this.#select.value);
    /** @type {Record<string, string | null>} */
    const input = { filterScope: scope };
    for (const field of Object.values(FILTER_FIELD)) input[field] = null;
    if (scope === 'global') return input;
    if (!this.#chosen) throw new Error(`Choose the ${KINDS[scope].label.toLowerCase()} this webhook is for: find it by name, then pick it.`);
    input[FILTER_FIELD[scope]] = this.#chosen.id;
    return input;
  }

  #scopeChanged() {
    const scope = /** @type {Scope} */ (this.#select.value);
    byId('scope-picker', HTMLElement).hidden = scope === 'global';
    if (scope !== 'global') byId('scope-search-label', HTMLElement).textContent = `Find the ${KINDS[scope].label.toLowerCase()} by name`;
    fill(byId('scope-options', HTMLElement));
    say(byId('scope-status', HTMLElement), '');
    if (this.#chosen?.kind !== scope) this.#choose(null);
  }

  async #find() {
    const scope = /** @type {Scope} */ (this.#select.value);
    const status = byId('scope-status', HTMLElement);
    if (scope === 'global') return;
    say(status, 'Searching…');
    try {
      const found = await searchCatalog(this.#search.value, scope);
      this.#renderOptions(found);
      say(status, found.length === 0 ? `No ${KINDS[scope].plural} found for “${this.#search.value}”.` : `${found.length} found: choose one below.`);
    } catch (failure) {
      say(status, messageOf(failure));
    }
  }

  /**
   * One button per match (reachable with Tab alone); the chosen one is pressed.
   * @param {Found[]} found
   */
  #renderOptions(found) {
    const options = found.map((entry) => {
      const button = h('button', { type: 'button', class: 'small', 'aria-pressed': String(this.#chosen?.id === entry.id) }, 'Choose');
      button.setAttribute('aria-label', `Choose ${labelOf(entry)}`);
      button.addEventListener('click', () => {
        this.#choose(entry);
        for (const other of byId('scope-options', HTMLElement).querySelectorAll('button')) other.setAttribute('aria-pressed', String(other === button));
      });
      return h('li', {}, h('span', { class: 'name' }, entry.name), entry.detail ? h('span', { class: 'detail' }, entry.detail) : null, button);
    });
    fill(byId('scope-options', HTMLElement), ...options);
  }

  /** @param {Found | null} found */
  #choose(found) {
    this.#chosen = found;
    byId('scope-chosen', HTMLElement).textContent = found ? `Chosen: ${labelOf(found)}` : '';
  }
}

/**
 * The kind and id a webhook is scoped to, or null for a global one.
 * @param {Record<string, any>} webhook
 * @returns {{ kind: Kind, id: string } | null}
 */
export function scopeOf(webhook) {
  if (webhook.filterScope === 'global') return null;
  const kind = /** @type {Kind} */ (webhook.filterScope);
  return { kind, id: String(webhook[FILTER_FIELD[kind]]) };
}
