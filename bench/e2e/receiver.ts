/**
 * bench:e2e's subscriber: a developer and a global webhook that point at the signed-delivery receiver, and
 * which of the receiver's deliveries carries a given rename.
 */
import type { RunningStack } from '../../scripts/stack/start-stack.js';
import type { ReceivedWebhook, SignedWebhookReceiver } from '../support/signed-webhook-receiver.js';
import { SECRET } from './settings.js';
import { api } from './stack-api.js';

/** Registers a developer and creates a webhook to the receiver; resolves with the webhook's id. */
export async function subscribeReceiver(stack: RunningStack, receiver: SignedWebhookReceiver): Promise<string> {
  const registered = await api<{ data?: { apiKey: string } }>(stack, '/developers/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-e2e-${Date.now()}@example.edu`, name: 'bench:e2e' }),
  });
  if (registered.status !== 201 || !registered.body.data) throw new Error(`registering a developer answered ${registered.status}`);
  const webhook = await api<{ data?: { id: string } }>(stack, '/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': registered.body.data.apiKey },
    body: JSON.stringify({ url: receiver.url, secret: SECRET }),
  });
  if (webhook.status !== 201 || !webhook.body.data) throw new Error(`creating the webhook answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
  return webhook.body.data.id;
}

/** The course.updated delivery that carries this name as the course's new name. */
export const deliveryOfRename = (name: string) => (delivery: ReceivedWebhook) =>
  delivery.body?.data?.entityType === 'course' && (delivery.body.data.current as { name?: unknown } | null)?.name === name;
