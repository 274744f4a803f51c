// The student's search: a name and a kind give things to pick; each result has its own Add button.
import { messageOf } from './api.js';
import { KINDS, labelOf, searchCatalog, semestersOf } from './catalog.js';
import { byId, fill, h, say, showError } from './dom.js';

/** @typedef {import('./catalog.js').Found} Found */
/** @typedef {import('./catalog.js').Kind} Kind */

/**
 * @typedef {object} CatalogSearchOptions
 * @property {(found: Found) => boolean} isPicked
 * @property {(found: Found[]) => void} pick
 */

/** @param {CatalogSearchOptions} options */
export function startCatalogSearch(options) {
  const form = byId('search-form', HTMLFormElement);
  const text = byId('search-text', HTMLInputElement);
  const kind = byId('search-kind', HTMLSelectElement);
  const status = byId('search-status', HTMLElement);
  const error = byId('search-error', HTMLElement);
  const results = byId('search-results', HTMLUListElement);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError(error, '');
    say(status, 'Searching…');
    try {
      const found = await searchCatalog(text.value, /** @type {Kind | ''} */ (kind.value));
      fill(results, ...found.map((entry) => resultItem(entry, options, error)));
      say(status, found.length === 0 ? `Nothing found for “${text.value}”.` : `${found.length} found.`);
    } catch (failure) {
      say(status, '');
      showError(error, messageOf(failure));
    }
  });
}

/**
 * @param {Found} found
 * @param {CatalogSearchOptions} options
 * @param {HTMLElement} error
 */
function resultItem(found, options, error) {
  const isProgram = found.kind === 'program';
  const button = h('button', { type: 'button', class: 'small' }, isProgram ? 'Add its semesters' : 'Add');
  button.setAttribute('aria-label', `${isProgram ? 'Add the semesters of' : 'Add'} ${labelOf(found)}`);
  const markAdded = () => {
    button.textContent = 'Added';
    button.setAttribute('aria-label', `Added ${labelOf(found)}`);
    button.setAttribute('aria-disabled', 'true');
  };
  if (!isProgram && options.isPicked(found)) markAdded();
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-disabled') === 'true') return;
    showError(error, '');
    try {
      options.pick(isProgram ? await semestersOf(found.id) : [found]);
      markAdded();
    } catch (failure) {
      showError(error, messageOf(failure));
    }
  });
  return h(
    'li',
    {},
    h('span', { class: 'kind' }, KINDS[found.kind].label),
    h('span', { class: 'name' }, found.name),
    found.detail ? h('span', { class: 'detail' }, found.detail) : null,
    button,
  );
}
