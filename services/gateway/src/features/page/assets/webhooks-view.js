// The developer's webhooks: a table with edit, pause or resume, test, deliveries and delete.
import { api, messageOf } from './api.js';
import { describe, labelOf } from './catalog.js';
import { DeliveriesView } from './deliveries-view.js';
import { byId, fill, h, say, showError } from './dom.js';
import { scopeOf } from './scope-picker.js';
import { WebhookForm } from './webhook-form.js';

/** @typedef {Record<string, any>} Webhook */

export class WebhooksView {
  #deliveries = new DeliveriesView();
  #form = new WebhookForm((webhook) => {
    say(byId('webhooks-status', HTMLElement), `Saved the webhook to ${webhook.url}.`);
    void this.load();
  });
  /** Called after every load, so what depends on the webhooks (the account's count) follows. */
  #loaded;
  /** Names of scoped things, by kind and id: a table refresh asks the catalog only for new ones. */
  /** @type {Map<string, Promise<string>>} */
  #scopeNames = new Map();

  /** @param {() => Promise<void>} loaded */
  constructor(loaded) {
    this.#loaded = loaded;
    byId('new-webhook', HTMLButtonElement).addEventListener('click', () => this.#form.openNew());
  }

  /** @param {boolean} [tellLoaded] false when the caller has just read what depends on the webhooks itself */
  async load(tellLoaded = true) {
    const error = byId('webhooks-error', HTMLElement);
    showError(error, '');
    try {
      const { data } = await api('/webhooks', { withKey: true });
      const rows = await Promise.all(data.map((/** @type {Webhook} */ webhook) => this.#row(webhook)));
      fill(byId('webhooks-body', HTMLElement), ...rows);
      byId('webhooks-table', HTMLTableElement).hidden = data.length === 0;
      byId('webhooks-empty', HTMLElement).hidden = data.length > 0;
      if (tellLoaded) await this.#loaded();
    } catch (failure) {
      showError(error, messageOf(failure));
    }
  }

  hide() {
    this.#form.close();
    this.#deliveries.close();
  }

  /** @param {Webhook} webhook */
  async #row(webhook) {
    const cell = (/** @type {string} */ label, /** @type {import('./dom.js').Child[]} */ ...content) => h('td', { 'data-label': label }, ...content);
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, h('code', { class: 'url' }, webhook.url)),
      cell('Scope', await this.#scopeName(webhook)),
      cell('Events', webhook.eventTypes.join(', ')),
      cell('State', stateOf(webhook)),
      cell('Actions', h('div', { class: 'row-actions' }, ...this.#actions(webhook))),
    );
  }

  /** @param {Webhook} webhook */
  #actions(webhook) {
    const button = (/** @type {string} */ text, /** @type {() => Promise<void> | void} */ run) => {
      const element = h('button', { type: 'button', class: 'small' }, text);
      element.setAttribute('aria-label', `${text}: webhook to ${webhook.url}`);
      element.addEventListener('click', () => void this.#attempt(run));
      return element;
    };
    return [
      button('Edit', () => this.#form.openEdit(webhook)),
      button(webhook.isActive ? 'Pause' : 'Resume', () => this.#setActive(webhook, !webhook.isActive)),
      button('Send test', () => this.#sendTest(webhook)),
      button('Deliveries', () => this.#deliveries.open(webhook)),
      button('Delete', () => this.#remove(webhook)),
    ];
  }

  /** @param {() => Promise<void> | void} run */
  async #attempt(run) {
    showError(byId('webhooks-error', HTMLElement), '');
    try {
      await run();
    } catch (failure) {
      showError(byId('webhooks-error', HTMLElement), messageOf(failure));
    }
  }

  /**
   * @param {Webhook} webhook
   * @param {boolean} isActive
   */
  async #setActive(webhook, isActive) {
    await api(`/webhooks/${webhook.id}`, { method: 'PATCH', body: { isActive }, withKey: true });
    say(byId('webhooks-status', HTMLElement), `${isActive ? 'Resumed' : 'Paused'} the webhook to ${webhook.url}.`);
    await this.load();
  }

  /** @param {Webhook} webhook */
  async #sendTest(webhook) {
    await api(`/webhooks/${webhook.id}/test`, { method: 'POST', withKey: true });
    say(byId('webhooks-status', HTMLElement), `Queued a test delivery to ${webhook.url}.`);
    await this.#deliveries.open(webhook);
  }

  /** @param {Webhook} webhook */
  async #remove(webhook) {
    if (!confirm(`Delete the webhook to ${webhook.url}? Its pending deliveries fail. This cannot be undone.`)) return;
    const { message } = await api(`/webhooks/${webhook.id}`, { method: 'DELETE', withKey: true });
    if (this.#deliveries.webhookId === webhook.id) this.#deliveries.close();
    say(byId('webhooks-status', HTMLElement), message ?? 'Webhook deleted.');
    await this.load();
    byId('webhooks-heading', HTMLElement).focus();
  }

  /** @param {Webhook} webhook */
  #scopeName(webhook) {
    const scope = scopeOf(webhook);
    if (!scope) return Promise.resolve('Everything');
    const key = `${scope.kind}:${scope.id}`;
    if (!this.#scopeNames.has(key)) {
      this.#scopeNames.set(key, describe(scope.kind, scope.id).then((found) => (found ? labelOf(found) : `Unknown ${scope.kind} ${scope.id}`)));
    }
    return /** @type {Promise<string>} */ (this.#scopeNames.get(key));
  }
}

/** @param {Webhook} webhook */
function stateOf(webhook) {
  if (webhook.isActive) return 'Active';
  if (webhook.disabledReason) return `Disabled by the service: ${webhook.disabledReason}`;
  return 'Paused';
}
