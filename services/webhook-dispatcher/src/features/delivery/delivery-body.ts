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

/** A test delivery's dedupe id, fixed when it is queued so its retries carry the same id. */
export function testMessageId(queuedAt: Date): string {
  return `test-${queuedAt.getTime()}`;
}
