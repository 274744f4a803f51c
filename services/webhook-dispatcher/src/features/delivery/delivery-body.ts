/** What a delivery body says about its change; null for a test delivery. */
export interface ChangeContent {
  entityType: string;
  entityId: string;
  action: string;
  changedFields: string[];
  previous: Record<string, unknown> | null;
  current: Record<string, unknown> | null;
}

export interface DeliveryBody {
  id: string;
  timestamp: string;
  event: string;
  data: ChangeContent;
}

export const TEST_EVENT_TYPE = 'test.created';
export const TEST_MESSAGE = 'This is a test delivery from the timetable service.';

const testContent: ChangeContent = {
  entityType: 'test',
  entityId: 'test-entity',
  action: 'created',
  changedFields: [],
  previous: null,
  current: { message: TEST_MESSAGE },
};

/** Built at dispatch time: `timestamp` is when this attempt is sent, not when the change happened. */
export function deliveryBody(messageId: string, eventType: string, change: ChangeContent | null, sentAt: Date): DeliveryBody {
  return { id: messageId, timestamp: sentAt.toISOString(), event: eventType, data: change ?? testContent };
}

/** A matched change as stored for delivery: its JSON columns as the text they were stored as, never parsed. */
export interface StoredChange {
  entityType: string;
  entityId: string;
  action: string;
  changedFieldsJson: string;
  previousJson: string | null;
  currentJson: string | null;
}

/**
 * The JSON of a delivery body's `data` (a ChangeContent), with the stored JSON spliced in as it is: it was
 * written by JSON.stringify, so parsing and serialising it again would give back the same text, at a cost
 * per delivery.
 */
export function changeDataJson(change: StoredChange): string {
  return `{"entityType":${JSON.stringify(change.entityType)},"entityId":${JSON.stringify(change.entityId)},"action":${JSON.stringify(
    change.action,
  )},"changedFields":${change.changedFieldsJson},"previous":${change.previousJson ?? 'null'},"current":${change.currentJson ?? 'null'}}`;
}

const testDataJson = JSON.stringify(testContent);

/**
 * `JSON.stringify(deliveryBody(...))`, byte for byte, from the `data` JSON (changeDataJson; null for a test
 * delivery), which a claim builds once per change however many deliveries and attempts send it.
 */
export function serialiseDeliveryBody(messageId: string, eventType: string, dataJson: string | null, sentAt: Date): string {
  return `{"id":${JSON.stringify(messageId)},"timestamp":"${sentAt.toISOString()}","event":${JSON.stringify(eventType)},"data":${dataJson ?? testDataJson}}`;
}

/** A test delivery's dedupe id, fixed when it is queued so its retries carry the same id. */
export function testMessageId(queuedAt: Date): string {
  return `test-${queuedAt.getTime()}`;
}
