// The account behind the tab's key and its usage of the last 30 days.
import { api } from './api.js';
import { byId, fill, h } from './dom.js';

/**
 * Loads and shows the account; fails with the API's error (401 for a wrong key).
 * @returns {Promise<void>}
 */
export async function showAccount() {
  const [{ data: me }, { data: usage }] = await Promise.all([api('/developers/me', { withKey: true }), api('/developers/usage', { withKey: true })]);
  const name = me.name ? `${me.name}, ${me.email}` : me.email;
  byId('account-summary', HTMLElement).textContent = `${name}. Key ending in ${me.apiKeyHint}; ${me._count.webhooks} ${me._count.webhooks === 1 ? 'webhook' : 'webhooks'}.`;
  renderUsage(usage);
}

/** @param {{ total: number, byEndpoint: { endpoint: string, _count: number }[] }} usage */
function renderUsage(usage) {
  byId('usage-total', HTMLElement).textContent = `${usage.total} ${usage.total === 1 ? 'request' : 'requests'} to the developer and webhook routes.`;
  fill(
    byId('usage-body', HTMLElement),
    ...usage.byEndpoint.map((entry) => h('tr', {}, h('td', { 'data-label': 'Endpoint' }, h('code', {}, entry.endpoint)), h('td', { 'data-label': 'Requests' }, entry._count))),
  );
  byId('usage-table', HTMLTableElement).hidden = usage.byEndpoint.length === 0;
}
