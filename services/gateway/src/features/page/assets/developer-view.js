// The developer part: without a key, register or enter one; with a key, the account, usage and webhooks.
import { ApiError, messageOf } from './api.js';
import { showAccount } from './developer-account.js';
import { startDeveloperKey } from './developer-key.js';
import { byId, showError } from './dom.js';
import { currentKey, forgetKey } from './key-store.js';
import { WebhooksView } from './webhooks-view.js';

export function startDeveloperView() {
  const webhooks = new WebhooksView(showAccount);
  const keyChanged = () => void showForKey(webhooks);
  startDeveloperKey(keyChanged);
  return { refresh: keyChanged };
}

/** @param {WebhooksView} webhooks */
async function showForKey(webhooks) {
  const account = byId('account', HTMLElement);
  const keyForms = byId('key-forms', HTMLElement);
  showError(byId('register-error', HTMLElement), '');
  showError(byId('key-error', HTMLElement), '');
  if (!currentKey()) {
    webhooks.hide();
    account.hidden = true;
    keyForms.hidden = false;
    return;
  }
  try {
    await showAccount();
  } catch (failure) {
    // A key the service refuses is not kept: the forms come back with the API's reason.
    if (failure instanceof ApiError && failure.status === 401) forgetKey();
    account.hidden = true;
    keyForms.hidden = false;
    showError(byId('key-error', HTMLElement), messageOf(failure));
    return;
  }
  keyForms.hidden = true;
  account.hidden = false;
  await webhooks.load(false);
  byId('account-heading', HTMLElement).focus();
}
