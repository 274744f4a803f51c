/**
 * `subscribe` takes the event type from the topic definition. The type assertions below are checked by
 * `npm run typecheck` (tsc covers the tests): each `@ts-expect-error` line fails the build if it compiles.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { topics, type ChangeEvent, type EntityState, type UsageEvent } from '@timetable/contracts';
import { InProcessBus, type EventBus, type EventOf, type IncomingEvent } from '@timetable/events';
import { captureLogger } from '@timetable/testing';

const bus: EventBus = new InProcessBus(captureLogger('error').logger);
const base = { groupId: 'type-test', fromBeginning: true };

describe('subscribe infers the event type from the topic', () => {
  it('gives each topic its own event type', () => {
    expectTypeOf<EventOf<typeof topics.changes>>().toEqualTypeOf<ChangeEvent>();
    expectTypeOf<EventOf<typeof topics.entities>>().toEqualTypeOf<EntityState>();
    expectTypeOf<EventOf<typeof topics.usage>>().toEqualTypeOf<UsageEvent>();
  });

  it('hands the handler events of the topic, entity states narrowed by their entity type', () => {
    bus.subscribe({
      ...base,
      topic: topics.entities,
      handleBatch: (events) => {
        expectTypeOf(events).toEqualTypeOf<IncomingEvent<EntityState>[]>();
        for (const { value } of events) {
          if (value?.entityType === 'room') expectTypeOf(value.data.capacity).toEqualTypeOf<number>();
        }
        return Promise.resolve();
      },
    });
  });

  it('does not compile a handler declared for another topic’s events', () => {
    const usageHandler = (events: IncomingEvent<UsageEvent>[]) => Promise.resolve(void events);
    const changeHandler = (events: IncomingEvent<ChangeEvent>[]) => Promise.resolve(void events);
    // @ts-expect-error usage events are not change events
    bus.subscribe({ ...base, topic: topics.changes, handleBatch: usageHandler });
    // @ts-expect-error nor are change records entity states
    bus.subscribe({ ...base, topic: topics.entities, handleBatch: changeHandler });
    // @ts-expect-error the event type is no longer a type argument
    bus.subscribe<ChangeEvent>({ ...base, topic: topics.changes, handleBatch: changeHandler });
    bus.subscribe({ ...base, topic: topics.changes, handleBatch: changeHandler });
  });
});
