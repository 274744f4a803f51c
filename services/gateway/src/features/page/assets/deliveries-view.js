// One webhook's deliveries: status, response code and body, redeliver, and recover since an instant.
import { api, messageOf } from './api.js';
import { byId, fill, h, say, showError } from './dom.js';
import { formatDateTime, toLocalInputValue } from './format.js';

const PAGE_SIZE = 20;
/** While a delivery is pending the table refreshes itself this often. */
const REFRESH_MS = 2000;
const DAY_MS = 86_400_000;

/** @typedef {Record<string, any>} Delivery */

export class DeliveriesView {
  /** @type {Record<string, any> | null} */
  #webhook = null;
  #page = 1;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;

  constructor() {
    byId('deliveries-refresh', HTMLButtonElement).addEventListener('click', () => void this.#load());
    byId('deliveries-close', HTMLButtonElement).addEventListener('click', () => this.close());
    byId('deliveries-filter', HTMLSelectElement).addEventListener('change', () => this.#goTo(1));
    byId('deliveries-newer', HTMLButtonElement).addEventListener('click', () => this.#goTo(this.#page - 1));
    byId('deliveries-older', HTMLButtonElement).addEventListener('click', () => this.#goTo(this.#page + 1));
    byId('recover-form', HTMLFormElement).addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#recover();
    });
  }

  get webhookId() {
    return this.#webhook?.id ?? null;
  }

  /** @param {Record<string, any>} webhook */
  async open(webhook) {
    this.#webhook = webhook;
    this.#page = 1;
    byId('deliveries-heading', HTMLElement).textContent = `Deliveries to ${webhook.url}`;
    byId('recover-since', HTMLInputElement).value = toLocalInputValue(new Date(Date.now() - DAY_MS));
    say(byId('recover-status', HTMLElement), '');
    showError(byId('recover-error', HTMLElement), '');
    byId('deliveries', HTMLElement).hidden = false;
    byId('deliveries-heading', HTMLElement).focus();
    await this.#load();
  }

  close() {
    clearTimeout(this.#timer);
    this.#webhook = null;
    byId('deliveries', HTMLElement).hidden = true;
  }

  /** @param {number} page */
  #goTo(page) {
    this.#page = Math.max(1, page);
    void this.#load();
  }

  async #load() {
    clearTimeout(this.#timer);
    const webhook = this.#webhook;
    if (!webhook) return;
    const error = byId('deliveries-error', HTMLElement);
    const query = new URLSearchParams({ page: String(this.#page), limit: String(PAGE_SIZE) });
    const status = byId('deliveries-filter', HTMLSelectElement).value;
    if (status) query.set('status', status);
    try {
      const body = await api(`/webhooks/${webhook.id}/deliveries?${query}`, { withKey: true });
      if (this.#webhook !== webhook) return;
      showError(error, '');
      this.#render(body.data, body.meta);
      if (body.data.some((/** @type {Delivery} */ delivery) => delivery.status === 'pending')) this.#timer = setTimeout(() => this.#refresh(), REFRESH_MS);
    } catch (failure) {
      showError(error, messageOf(failure));
    }
  }

  /** A refresh waits while the keyboard is inside the table, so the focused button is not replaced under it. */
  #refresh() {
    if (byId('deliveries-body', HTMLElement).contains(document.activeElement)) this.#timer = setTimeout(() => this.#refresh(), REFRESH_MS);
    else void this.#load();
  }

  /**
   * @param {Delivery[]} deliveries
   * @param {{ total: number, page: number, totalPages: number }} meta
   */
  #render(deliveries, meta) {
    fill(byId('deliveries-body', HTMLElement), ...deliveries.map((delivery) => this.#row(delivery)));
    byId('deliveries-table', HTMLTableElement).hidden = deliveries.length === 0;
    say(byId('deliveries-status', HTMLElement), meta.total === 0 ? 'No deliveries yet.' : `${meta.total} ${meta.total === 1 ? 'delivery' : 'deliveries'}; page ${meta.page} of ${meta.totalPages}.`);
    byId('deliveries-pages', HTMLElement).hidden = meta.totalPages <= 1;
    byId('deliveries-newer', HTMLButtonElement).disabled = meta.page <= 1;
    byId('deliveries-older', HTMLButtonElement).disabled = meta.page >= meta.totalPages;
  }

  /** @param {Delivery} delivery */
  #row(delivery) {
    const cell = (/** @type {string} */ label, /** @type {import('./dom.js').Child[]} */ ...content) => h('td', { 'data-label': label }, ...content);
    const redeliver = h('button', { type: 'button', class: 'small' }, 'Redeliver');
    redeliver.setAttribute('aria-label', `Redeliver ${delivery.eventType} of ${formatDateTime(delivery.createdAt)}`);
    redeliver.addEventListener('click', () => void this.#redeliver(delivery));
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, formatDateTime(delivery.createdAt)),
      cell('Event', delivery.eventType),
      cell('Status', h('span', { class: `badge ${delivery.status}` }, delivery.status)),
      cell('Attempts', delivery.attempts),
      cell('Response', delivery.responseCode ?? '—'),
      cell('Body or error', outcome(delivery)),
      cell('Actions', redeliver),
    );
  }

  /** @param {Delivery} delivery */
  async #redeliver(delivery) {
    const webhook = this.#webhook;
    if (!webhook) return;
    try {
      await api(`/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`, { method: 'POST', withKey: true });
      say(byId('deliveries-status', HTMLElement), `Queued ${delivery.eventType} again as a new delivery.`);
      this.#page = 1;
      await this.#load();
    } catch (failure) {
      showError(byId('deliveries-error', HTMLElement), messageOf(failure));
    }
  }

  async #recover() {
    const webhook = this.#webhook;
    if (!webhook) return;
    const status = byId('recover-status', HTMLElement);
    const error = byId('recover-error', HTMLElement);
    const since = new Date(byId('recover-since', HTMLInputElement).value);
    showError(error, '');
    try {
      const body = { since: Number.isNaN(since.getTime()) ? '' : since.toISOString() };
      const { data } = await api(`/webhooks/${webhook.id}/recover`, { method: 'POST', body, withKey: true });
      say(status, `${data.enqueued} failed ${data.enqueued === 1 ? 'delivery was' : 'deliveries were'} queued again.`);
      await this.#load();
    } catch (failure) {
      say(status, '');
      showError(error, messageOf(failure));
    }
  }
}

/**
 * The receiver's answer (folded, it can be long) or why there was none.
 * @param {Delivery} delivery
 */
function outcome(delivery) {
  if (delivery.errorMessage) return h('span', { class: 'error-text' }, delivery.errorMessage);
  if (delivery.responseBody === null || delivery.responseBody === '') return delivery.attempts === 0 ? 'Not attempted yet' : 'Empty body';
  return h('details', {}, h('summary', {}, 'Response body'), h('pre', {}, delivery.responseBody));
}
