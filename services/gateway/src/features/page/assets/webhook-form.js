// Creating and editing a webhook: receiver, secret, events, scope by name, active.
import { api, messageOf } from './api.js';
import { describe } from './catalog.js';
import { byId, showError } from './dom.js';
import { ScopePicker, scopeOf } from './scope-picker.js';

export class WebhookForm {
  /** @type {Record<string, any> | null} the webhook being edited; null while creating one */
  #editing = null;
  #form = byId('webhook-form', HTMLFormElement);
  #scope = new ScopePicker();

  /** @param {(webhook: Record<string, any>) => void} saved */
  constructor(saved) {
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#save(saved);
    });
    byId('webhook-cancel', HTMLButtonElement).addEventListener('click', () => this.close());
  }

  openNew() {
    this.#editing = null;
    this.#form.reset();
    this.#scope.reset('global', null);
    this.#open('New webhook', 'Leave empty for unsigned deliveries.');
  }

  /** @param {Record<string, any>} webhook */
  async openEdit(webhook) {
    this.#editing = webhook;
    this.#form.reset();
    byId('webhook-url', HTMLInputElement).value = webhook.url;
    for (const box of this.#eventBoxes()) box.checked = webhook.eventTypes.includes(box.value);
    byId('webhook-active', HTMLInputElement).checked = webhook.isActive;
    const scope = scopeOf(webhook);
    this.#scope.reset(webhook.filterScope, scope ? await describe(scope.kind, scope.id) : null);
    this.#open('Edit webhook', webhook.hasSecret ? 'Leave empty to keep the current secret.' : 'Leave empty for unsigned deliveries.');
  }

  close() {
    this.#form.hidden = true;
    byId('webhooks-heading', HTMLElement).focus();
  }

  /**
   * @param {string} title
   * @param {string} secretHint
   */
  #open(title, secretHint) {
    showError(byId('webhook-form-error', HTMLElement), '');
    byId('webhook-form-heading', HTMLElement).textContent = title;
    byId('webhook-secret-hint', HTMLElement).textContent = secretHint;
    this.#form.hidden = false;
    byId('webhook-form-heading', HTMLElement).focus();
  }

  /** @param {(webhook: Record<string, any>) => void} saved */
  async #save(saved) {
    const error = byId('webhook-form-error', HTMLElement);
    showError(error, '');
    try {
      const body = this.#body();
      const { data } = this.#editing
        ? await api(`/webhooks/${this.#editing.id}`, { method: 'PATCH', body, withKey: true })
        : await api('/webhooks', { method: 'POST', body, withKey: true });
      this.#form.hidden = true;
      saved(data);
    } catch (failure) {
      showError(error, messageOf(failure));
    }
  }

  #body() {
    const secret = byId('webhook-secret', HTMLInputElement).value;
    return {
      url: byId('webhook-url', HTMLInputElement).value.trim(),
      ...(secret ? { secret } : {}),
      eventTypes: this.#eventBoxes().filter((box) => box.checked).map((box) => box.value),
      ...this.#scope.toInput(),
      isActive: byId('webhook-active', HTMLInputElement).checked,
    };
  }

  #eventBoxes() {
    return [...this.#form.querySelectorAll('input[name="event-type"]')].filter((box) => box instanceof HTMLInputElement);
  }
}
