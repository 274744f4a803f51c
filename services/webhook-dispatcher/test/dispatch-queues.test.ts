import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeDataJson, deliveryBody, serialiseDeliveryBody, type ChangeContent } from '../src/features/delivery/delivery-body.js';
import type { ClaimedDelivery } from '../src/features/delivery/delivery-store.js';
import { HostQueues, MAX_SLOW_HOSTS, SLOW_AFTER_MS, SLOW_REMEMBERED_MS } from '../src/features/delivery/host-queues.js';

const sentAt = new Date('2025-03-03T10:00:00.123Z');

/** What the matcher stores for a change: its JSON members as JSON.stringify wrote them. */
function stored(change: ChangeContent) {
  return {
    entityType: change.entityType,
    entityId: change.entityId,
    action: change.action,
    changedFieldsJson: JSON.stringify(change.changedFields),
    previousJson: change.previous === null ? null : JSON.stringify(change.previous),
    currentJson: change.current === null ? null : JSON.stringify(change.current),
  };
}

describe('the delivery body', () => {
  it('is JSON.stringify of the body, byte for byte, with the stored change data spliced in unparsed', () => {
    const change: ChangeContent = {
      entityType: 'course', entityId: 'c-1', action: 'updated', changedFields: ['name', 'credits'],
      previous: { name: 'Mathe "1"\n\u2028 ü', credits: 5, nested: { z: 1, a: [null, true] } }, current: { name: 'Mathe 1 😀', credits: 6 },
    };
    for (const [id, event, content] of [['m-1', 'course.updated', change], ['m-"2"', 'course.updated', change], ['test-1', 'test.created', null]] as const) {
      const data = content === null ? null : changeDataJson(stored(content));
      expect(serialiseDeliveryBody(id, event, data, sentAt)).toBe(JSON.stringify(deliveryBody(id, event, content, sentAt)));
    }
  });

  it('splices any stored change into the same text as serialising it whole', () => {
    const record = fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: null });
    const content = fc.record({
      entityType: fc.string(), entityId: fc.string(), action: fc.string(), changedFields: fc.array(fc.string()), previous: record, current: record,
    });
    fc.assert(fc.property(content, (change) => changeDataJson(stored(change)) === JSON.stringify(change)));
  });
});

function delivery(id: string, host: string): ClaimedDelivery {
  return {
    id, host, claimToken: 't', leaseUntil: sentAt, messageId: id, eventType: 'course.updated', attempts: 0,
    url: `http://${host}/`, developerId: 'd', secret: null, webhookDeleted: false, data: null,
  };
}

describe('the per-host queues of leased deliveries', () => {
  it('start no more than the host limit per host and the process limit in all, hosts taking turns', () => {
    const queues = new HostQueues({ hostLimit: 2, limit: 5 });
    queues.add(['a1', 'a2', 'a3', 'a4'].map((id) => delivery(id, 'a:80')));
    queues.add(['b1', 'b2', 'b3'].map((id) => delivery(id, 'b:80')));
    queues.add(['c1'].map((id) => delivery(id, 'c:80')));
    const first = queues.takeStartable().map((each) => each.id);
    expect(first).toEqual(['a1', 'b1', 'c1', 'a2', 'b2']);
    expect(queues.running).toBe(5);
    expect(queues.waiting).toBe(3);
    expect(queues.takeStartable()).toEqual([]);

    queues.finished('c:80');
    // c has nothing left and a and b are at their host limit: nothing starts although the process has room.
    expect(queues.takeStartable()).toEqual([]);
    queues.finished('a:80');
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a3']);
  });

  it('hands back what waits, for one host or for all', () => {
    const queues = new HostQueues({ hostLimit: 1, limit: 10 });
    queues.add([delivery('a1', 'a:80'), delivery('a2', 'a:80'), delivery('b1', 'b:80'), delivery('b2', 'b:80')]);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a1', 'b1']);
    expect(queues.takeWaiting('a:80').map((each) => each.id)).toEqual(['a2']);
    expect(queues.waiting).toBe(1);
    expect(queues.takeWaiting().map((each) => each.id)).toEqual(['b2']);
    expect(queues.waiting).toBe(0);
    expect(queues.running).toBe(2);
  });
});

describe('slow hosts', () => {
  function queuesAt(hostLimit = 2) {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit, limit: 10_000 }, () => now);
    return { queues, advance: (ms: number) => (now += ms) };
  }

  it('are hosts whose every slot has been taken for a second with no attempt ending, and no others', () => {
    const { queues, advance } = queuesAt();
    queues.add([delivery('a1', 'a:80'), delivery('a2', 'a:80'), delivery('a3', 'a:80'), delivery('b1', 'b:80')]);
    queues.takeStartable();
    advance(SLOW_AFTER_MS - 1);
    expect(queues.slowHosts()).toEqual([]);
    advance(1);
    // b has a free slot: its one attempt may be slow, but nothing waits behind it.
    expect(queues.slowHosts()).toEqual(['a:80']);
  });

  it('stay slow while idle between attempts, until an attempt to them ends within a second', () => {
    const { queues, advance } = queuesAt(1);
    queues.add([delivery('a1', 'a:80')]);
    queues.takeStartable();
    advance(SLOW_AFTER_MS);
    expect(queues.slowHosts()).toEqual(['a:80']);
    // The hung attempt times out: the host has nothing running or waiting, and is still slow.
    advance(30_000);
    queues.finished('a:80', 30_000 + SLOW_AFTER_MS);
    expect(queues.slowHosts()).toEqual(['a:80']);
    queues.add([delivery('a2', 'a:80')]);
    queues.takeStartable();
    advance(10);
    queues.finished('a:80', 10);
    expect(queues.slowHosts()).toEqual([]);
  });

  it('are forgotten when not seen stalled for a while, and never more than a bounded number are kept', () => {
    const { queues, advance } = queuesAt(1);
    const hosts = Array.from({ length: MAX_SLOW_HOSTS + 5 }, (_, index) => `h${index}:80`);
    queues.add(hosts.map((host) => delivery(`d-${host}`, host)));
    queues.takeStartable();
    advance(SLOW_AFTER_MS);
    const slow = queues.slowHosts();
    expect(slow).toHaveLength(MAX_SLOW_HOSTS);
    for (const host of hosts) queues.finished(host, 2 * SLOW_AFTER_MS);
    advance(SLOW_REMEMBERED_MS);
    expect(queues.slowHosts()).toEqual([]);
  });
});
