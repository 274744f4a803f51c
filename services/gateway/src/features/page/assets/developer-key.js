// Registering (the key is shown once) and choosing the key this tab works with.
import { api, messageOf } from './api.js';
import { copyButton } from './clipboard.js';
import { byId, say, showError } from './dom.js';
import { forgetKey, rememberKey } from './key-store.js';

/** @param {() => void} keyChanged called after the tab's key was set or forgotten */
export function startDeveloperKey(keyChanged) {
  const newKey = byId('new-key-value', HTMLInputElement);
  byId('register-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void register();
  });
  copyButton({ button: byId('copy-new-key', HTMLButtonElement), source: newKey, status: byId('copy-new-key-status', HTMLElement) });
  byId('use-new-key', HTMLButtonElement).addEventListener('click', () => {
    rememberKey(newKey.value);
    hideNewKey();
    keyChanged();
  });
  byId('key-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('key-input', HTMLInputElement);
    rememberKey(input.value.trim());
    input.value = '';
    showError(byId('key-error', HTMLElement), '');
    keyChanged();
  });
  byId('forget-key', HTMLButtonElement).addEventListener('click', () => {
    forgetKey();
    keyChanged();
    byId('developers-heading', HTMLElement).focus();
  });
}

async function register() {
  const error = byId('register-error', HTMLElement);
  const email = byId('register-email', HTMLInputElement);
  const name = byId('register-name', HTMLInputElement);
  showError(error, '');
  try {
    const body = name.value.trim() ? { email: email.value, name: name.value.trim() } : { email: email.value };
    const { data } = await api('/developers/register', { method: 'POST', body });
    email.value = '';
    name.value = '';
    showNewKey(data.apiKey);
  } catch (failure) {
    showError(error, messageOf(failure));
  }
}

/** @param {string} key */
function showNewKey(key) {
  byId('new-key-value', HTMLInputElement).value = key;
  say(byId('copy-new-key-status', HTMLElement), '');
  byId('new-key', HTMLElement).hidden = false;
  byId('new-key-heading', HTMLElement).focus();
}

/** Once used, the key leaves the page: it is in session storage, and shown nowhere. */
function hideNewKey() {
  byId('new-key-value', HTMLInputElement).value = '';
  byId('new-key', HTMLElement).hidden = true;
}
