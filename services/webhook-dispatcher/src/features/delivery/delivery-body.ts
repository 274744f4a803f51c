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

/** The JSON of each change's `data`, serialised once however many deliveries and attempts send it. */
const serialisedData = new WeakMap<ChangeContent, string>();

/**
 * `JSON.stringify(deliveryBody(...))`, byte for byte, with `data` serialised once per change content
 * (a claim shares one content object among the deliveries of a change; it is never modified).
 */
export function serialiseDeliveryBody(messageId: string, eventType: string, change: ChangeContent | null, sentAt: Date): string {
  const data = change ?? testContent;
  let dataJson = serialisedData.get(data);
  if (dataJson === undefined) {
    dataJson = JSON.stringify(data);
    serialisedData.set(data, dataJson);
  }
  return `{"id":${JSON.stringify(messageId)},"timestamp":"${sentAt.toISOString()}","event":${JSON.stringify(eventType)},"data":${dataJson}}`;
}

/** A test delivery's dedupe id, fixed when it is queued so its retries carry the same id. */
export function testMessageId(queuedAt: Date): string {
  return `test-${queuedAt.getTime()}`;
}
