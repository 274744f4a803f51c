/**
 * Issue 6, last point: a change in the simulator reaches a subscribed receiver as a correctly signed
 * delivery, through the real sync, Kafka (with the schema registry) and the dispatcher.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@timetable/contracts';
import { verifyWebhookSignature } from '../src/index.js';
import { startEndToEndSystem, waitFor, type EndToEndSystem, type SyncRun } from './support/end-to-end-system.js';
import { startReceiver, type ReceivedRequest, type TestReceiver } from './support/test-receiver.js';

const SECRET = 'end-to-end-webhook-secret';
const owner = randomUUID();

let system: EndToEndSystem;
const receivers: Record<'course' | 'updates' | 'creations', TestReceiver | undefined> = { course: undefined, updates: undefined, creations: undefined };
const hookIds: Record<'course' | 'updates' | 'creations', string> = { course: '', updates: '', creations: '' };
let courseId: string;
let oldName: string;
let newName: string;
let second: SyncRun;
let syncStartedAt: number;

beforeAll(async () => {
  system = await startEndToEndSystem();
  const first = await system.sync();
  expect(first.result.status).toBe('succeeded');
  expect(first.result.created).toBeGreaterThan(0);

  // A course that has events, so renaming its lecture touches the course and its events and creates nothing.
  const event = first.changes.find((change) => change.entityType === 'event' && typeof change.newData?.courseId === 'string');
  courseId = String(event?.newData?.courseId);
  const course = first.changes.find((change) => change.entityType === 'course' && change.entityId === courseId);
  const metadata = course?.newData?.metadata as { upstreamId: number } | undefined;
  expect(metadata).toBeDefined();
  oldName = String(course?.newData?.name);
  newName = `${oldName} (neu)`;

  receivers.course = await startReceiver();
  receivers.updates = await startReceiver();
  receivers.creations = await startReceiver();
  hookIds.course = await createWebhook({ url: receivers.course.url, secret: SECRET, filterScope: 'course', filterCourseId: courseId, eventTypes: ['updated'] });
  hookIds.updates = await createWebhook({ url: receivers.updates.url, secret: SECRET, eventTypes: ['updated'] });
  hookIds.creations = await createWebhook({ url: receivers.creations.url, secret: SECRET, eventTypes: ['created'] });

  // A new group starts at the end of the topic: it must have joined and pinned its offsets before the second sync publishes.
  await system.webhooks.start();
  const consumerReady = system.webhooks.readiness.find((check) => check.name === 'webhooks-changes-consumer');
  await waitFor('the change matcher to join its group', async () => (await consumerReady?.check()) === true);
  await new Promise((resolve) => setTimeout(resolve, 1500));

  system.sim.simulator.renameLecture({ lectureId: metadata!.upstreamId, name: newName });
  syncStartedAt = Date.now();
  second = await system.sync();
  const ids = second.changes.map((change) => change.id);
  // The catch-all `updated` webhook matches every change of this run: once all have deliveries, the matcher has seen them all.
  await waitFor('the dispatcher to match every change of the second sync', async () => {
    const rows = await system.webhooksKnex('deliveries').where({ webhook_id: hookIds.updates }).whereIn('change_id', ids).count<{ count: string }[]>({ count: '*' });
    return Number(rows[0]?.count) === ids.length;
  });
  await system.webhooks.dispatcher.runCycle();
}, 90_000);

afterAll(async () => {
  for (const receiver of Object.values(receivers)) await receiver?.close();
  await system?.close();
});

async function createWebhook(body: Record<string, unknown>): Promise<string> {
  const response = await system.call(owner, 'POST', '/webhooks', body);
  expect(response.status).toBe(201);
  return String(response.body.data.id);
}

/** Deliveries of this run's changes; other test runs on the shared topic may reach the global webhooks too. */
function ours(receiver: TestReceiver | undefined): ReceivedRequest[] {
  const ids = new Set(second.changes.map((change) => change.id));
  return (receiver?.received ?? []).filter((request) => ids.has(request.body?.id));
}

describe('a simulator change reaches a subscriber through sync, Kafka and the dispatcher', () => {
  it('the second sync reports only the rename: the course and its events updated, nothing created or deleted', () => {
    expect(second.result).toMatchObject({ status: 'succeeded', created: 0, deleted: 0 });
    expect(second.changes.length).toBe(second.result.updated);
    const courseChanges = second.changes.filter((change) => change.entityType === 'course');
    expect(courseChanges.map((change) => change.entityId)).toEqual([courseId]);
    expect(second.changes.filter((change) => change.entityType === 'event').length).toBeGreaterThan(0);
    for (const change of second.changes) {
      expect(change.action).toBe('updated');
      expect(change.courseId).toBe(courseId);
      expect(second.cloudEventIds.get(change.id)).toBe(change.id);
    }
  });

  it('delivers each matching change exactly once to the course-scoped webhook, signed over the raw body', () => {
    const delivered = ours(receivers.course);
    expect(delivered.map((request) => request.body.id).sort()).toEqual(second.changes.map((change) => change.id).sort());
    for (const request of delivered) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.headers['content-type']).toBe('application/json');
      const timestamp = request.headers['x-webhook-timestamp'] as string;
      expect(timestamp).toMatch(/^\d+$/);
      expect(Number(timestamp)).toBeGreaterThanOrEqual(Math.floor(syncStartedAt / 1000));
      expect(Number(timestamp)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      const signature = request.headers['x-webhook-signature'] as string;
      expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(verifyWebhookSignature(request.rawBody, { timestamp, signature }, SECRET)).toBe(true);
      expect(verifyWebhookSignature(request.rawBody, { timestamp, signature }, `${SECRET}-other`)).toBe(false);
      expect(verifyWebhookSignature(`${request.rawBody} `, { timestamp, signature }, SECRET)).toBe(false);
    }
  });

  it('carries the change record of the course rename as the spec body', () => {
    const change = second.changes.find((each) => each.entityType === 'course') as ChangeEvent;
    const [request, ...others] = ours(receivers.course).filter((each) => each.body.id === change.id);
    expect(others).toHaveLength(0);
    const body = request!.body;
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'id', 'timestamp']);
    expect(body.id).toBe(change.id);
    expect(body.event).toBe('course.updated');
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    expect(body.data).toEqual({
      entityType: 'course',
      entityId: courseId,
      action: 'updated',
      changedFields: ['name'],
      previous: change.previousData,
      current: change.newData,
    });
    expect(body.data.previous).toMatchObject({ id: courseId, name: oldName });
    expect(body.data.current).toMatchObject({ id: courseId, name: newName });
  });

  it('records the course delivery as delivered on the first attempt', async () => {
    const change = second.changes.find((each) => each.entityType === 'course') as ChangeEvent;
    const response = await system.call(owner, 'GET', `/webhooks/${hookIds.course}/deliveries`);
    expect(response.status).toBe(200);
    const delivery = (response.body.data as { payload: { id: string } }[]).find((each) => each.payload.id === change.id);
    expect(delivery).toMatchObject({ webhookId: hookIds.course, eventType: 'course.updated', status: 'delivered', attempts: 1, responseCode: 200 });
  });

  it('delivers every change once to a global `updated` webhook and nothing to a global `created` one', async () => {
    expect(ours(receivers.updates).map((request) => request.body.id).sort()).toEqual(second.changes.map((change) => change.id).sort());
    expect(ours(receivers.creations)).toHaveLength(0);
    const queued = await system.webhooksKnex('deliveries').where({ webhook_id: hookIds.creations }).whereIn('change_id', second.changes.map((change) => change.id));
    expect(queued).toHaveLength(0);
  });
});
