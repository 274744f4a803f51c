import type { WebhookUpdateInput } from '@timetable/contracts';
import { ValidationError } from '@timetable/http';
import { SCOPE_FILTER, type Webhook } from './webhook.js';

/** Applies the fields present in an input; `null` clears an optional field, an absent key keeps it. */
export function withPatch(current: Webhook, patch: WebhookUpdateInput): Webhook {
  const next: Webhook = { ...current };
  if (patch.url !== undefined) next.url = patch.url;
  if (patch.secret !== undefined) next.secret = patch.secret;
  if (patch.filterScope !== undefined) next.filterScope = patch.filterScope;
  if (patch.filterProgramId !== undefined) next.filterProgramId = patch.filterProgramId;
  if (patch.filterSemesterId !== undefined) next.filterSemesterId = patch.filterSemesterId;
  if (patch.filterCourseId !== undefined) next.filterCourseId = patch.filterCourseId;
  if (patch.filterRoomId !== undefined) next.filterRoomId = patch.filterRoomId;
  if (patch.filterInstructorId !== undefined) next.filterInstructorId = patch.filterInstructorId;
  if (patch.eventTypes !== undefined) next.eventTypes = [...new Set(patch.eventTypes)];
  if (patch.isActive !== undefined) next.isActive = patch.isActive;
  // Enabled by its owner: whatever made the system disable it is theirs to have dealt with.
  if (patch.isActive === true) {
    next.disabledReason = null;
    next.disabledAt = null;
  }
  return next;
}

/** A scoped webhook without the id its scope consults could never fire; that is a client mistake. */
export function requireScopeFilter(webhook: Webhook): void {
  if (webhook.filterScope === 'global') return;
  const field = SCOPE_FILTER[webhook.filterScope];
  if (webhook[field] === null) {
    throw new ValidationError(`Body validation failed: ${field} is required when filterScope is ${webhook.filterScope}`, {
      issues: [{ path: field, message: `required when filterScope is ${webhook.filterScope}` }],
    });
  }
}
