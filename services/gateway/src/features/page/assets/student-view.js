// The student part: search, the picks (in the URL), the personal feed's subscribe link and the week.
import { messageOf } from './api.js';
import { describe, labelOf } from './catalog.js';
import { startCatalogSearch } from './catalog-search.js';
import { copyButton } from './clipboard.js';
import { byId, fill, h, say, showError } from './dom.js';
import { Selection } from './selection.js';
import { WeekView } from './week-view.js';

/** @typedef {import('./catalog.js').Found} Found */

export async function startStudentView() {
  const selection = new Selection();
  const week = new WeekView();
  const changed = () => {
    selection.writeToUrl();
    renderSelection(selection, changed);
    renderSubscribe(selection);
    week.show(selection.query());
  };
  startCatalogSearch({ isPicked: (found) => selection.has(found), pick: (found) => selection.add(...found) && changed() });
  copyButton({ button: byId('copy-feed', HTMLButtonElement), source: byId('feed-url', HTMLInputElement), status: byId('copy-feed-status', HTMLElement) });
  await restoreFromUrl(selection);
  changed();
}

/**
 * Names the picks of a shared or bookmarked address. A pick the catalog no longer knows is shown as such,
 * so it can be removed.
 * @param {Selection} selection
 */
async function restoreFromUrl(selection) {
  const error = byId('selection-error', HTMLElement);
  for (const { kind, id } of Selection.idsIn(location.search)) {
    try {
      selection.add((await describe(kind, id)) ?? { kind, id, name: `unknown (${id})`, detail: 'no longer in the timetable' });
    } catch (failure) {
      selection.add({ kind, id, name: id, detail: '' });
      showError(error, messageOf(failure));
    }
  }
}

/**
 * @param {Selection} selection
 * @param {() => void} changed
 */
function renderSelection(selection, changed) {
  byId('selection-empty', HTMLElement).hidden = !selection.isEmpty;
  const items = selection.picks.map((pick) => {
    const remove = h('button', { type: 'button', class: 'small' }, 'Remove');
    remove.setAttribute('aria-label', `Remove ${labelOf(pick)}`);
    remove.addEventListener('click', () => {
      selection.remove(pick);
      changed();
      byId('selection-heading', HTMLElement).focus();
    });
    return h('li', {}, h('span', { class: 'name' }, labelOf(pick)), remove);
  });
  fill(byId('selection-list', HTMLUListElement), ...items);
}

/** @param {Selection} selection */
function renderSubscribe(selection) {
  const section = byId('subscribe', HTMLElement);
  section.hidden = selection.isEmpty;
  if (selection.isEmpty) return;
  const feed = `${location.origin}/v1/timetable/ical?${selection.query()}`;
  byId('subscribe-link', HTMLAnchorElement).href = feed.replace(/^https?:/, 'webcal:');
  byId('feed-url', HTMLInputElement).value = feed;
  say(byId('copy-feed-status', HTMLElement), '');
}
