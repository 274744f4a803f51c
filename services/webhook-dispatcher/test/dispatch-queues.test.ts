import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeDataJson, deliveryBody, serialiseDeliveryBody, type ChangeContent } from '../src/features/delivery/delivery-body.js';
import type { ClaimedDelivery } from '../src/features/delivery/delivery-store.js';
import { HostQueues } from '../src/features/delivery/host-queues.js';
import { MAX_SLOW_HOSTS, SLOW_AFTER_MS, SLOW_REMEMBERED_MS } from '../src/features/delivery/host-reputation.js';

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
    webhookId: host, url: `http://${host}/`, developerId: 'd', secret: null, webhookDeleted: false, data: null,
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

/** Each host has answered an attempt quickly, so it runs on the process's slots. */
function answer(queues: HostQueues, hosts: string[]): void {
  for (const host of hosts) {
    queues.add([delivery(`warm-${host}`, host)]);
    expect(queues.takeStartable()).toHaveLength(1);
    queues.finished(host, 1);
  }
}

describe('slow hosts', () => {
  function queuesAt(hostLimit = 2) {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit, limit: 10_000 }, () => now);
    return { queues, advance: (ms: number) => (now += ms) };
  }

  it('are hosts with attempts running of which none has ended for a second, at their limit or not', () => {
    const { queues, advance } = queuesAt(2);
    queues.add([delivery('a1', 'a:80'), delivery('a2', 'a:80'), delivery('b1', 'b:80'), delivery('c1', 'c:80'), delivery('c2', 'c:80')]);
    queues.takeStartable();
    advance(SLOW_AFTER_MS / 2);
    // c's first attempt ends; its second started with the first and runs on.
    queues.finished('c:80', SLOW_AFTER_MS / 2);
    advance(SLOW_AFTER_MS / 2 - 1);
    expect(queues.slowHosts()).toEqual([]);
    advance(1);
    // a at its limit, b with a slot free: neither has had an attempt end for a second.
    expect(queues.slowHosts().sort()).toEqual(['a:80', 'b:80']);
  });

  it('are found when more hosts hang than the process has slots, so that turns keep each below its limit', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 4, limit: 4 }, () => now);
    const hosts = ['h1:80', 'h2:80', 'h3:80', 'h4:80', 'h5:80', 'h6:80'];
    answer(queues, hosts);
    queues.add(hosts.flatMap((host) => [1, 2, 3].map((n) => delivery(`${host}-${n}`, host))));
    // The process's 4 slots and the 4 spare ones go one per host in turn: none reaches its limit of 4.
    expect(queues.takeStartable()).toHaveLength(4);
    now += SLOW_AFTER_MS;
    expect(queues.slowHosts()).toEqual(['h1:80', 'h2:80', 'h3:80', 'h4:80']);
    // Their attempts moved to the spare slots: the process's take the next hosts.
    expect(queues.takeStartable().map((each) => each.host)).toEqual(['h5:80', 'h6:80', 'h5:80', 'h6:80']);
    expect(queues.running).toBe(8);
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

  it('run on the spare slots, so their hung attempts leave the process its limit for the hosts that answer', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 2, limit: 4 }, () => now);
    // a and b have answered before; dead once did too, and has stopped.
    answer(queues, ['a:80', 'b:80', 'dead:80']);
    queues.add(['d1', 'd2', 'd3'].map((id) => delivery(id, 'dead:80')));
    queues.add(['a1', 'a2', 'a3', 'a4', 'a5'].map((id) => delivery(id, 'a:80')));
    queues.add(['b1', 'b2', 'b3'].map((id) => delivery(id, 'b:80')));
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d1', 'a1', 'b1', 'd2']);
    now += SLOW_AFTER_MS / 2;
    queues.finished('a:80', 5);
    queues.finished('b:80', 5);
    // Until the dead host counts as slow, its two attempts hold two of the process's four slots.
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a2', 'b2']);
    now += SLOW_AFTER_MS / 2;
    expect(queues.slowHosts()).toEqual(['dead:80']);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a3', 'b3']);
    expect(queues.running).toBe(6);
    // Its slots are still its host limit: nothing more starts for it while its two attempts hang.
    expect(queues.takeWaiting('dead:80').map((each) => each.id)).toEqual(['d3']);

    // Once an attempt to it ends quickly it is an ordinary host again, and counts against the process's slots.
    queues.finished('dead:80', 30_000);
    queues.finished('dead:80', 10);
    expect(queues.slowHosts()).toEqual([]);
    queues.add([delivery('d4', 'dead:80'), delivery('d5', 'dead:80')]);
    queues.finished('a:80', 5);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a4']);
    queues.finished('b:80', 5);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d4']);
    expect(queues.running).toBe(4);
  });

  it('leave hosts that have not answered yet on the spare slots, so one that never does takes none of the process\'s', () => {
    const queues = new HostQueues({ hostLimit: 2, limit: 2 }, () => 1_000);
    answer(queues, ['a:80']);
    queues.add(['n1', 'n2', 'n3'].map((id) => delivery(id, 'new:80')));
    queues.add(['a1', 'a2', 'a3'].map((id) => delivery(id, 'a:80')));
    // The new host's two run on the spare slots, the answering host's two on the process's.
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['n1', 'a1', 'n2', 'a2']);
    expect(queues.running).toBe(4);
    // It answers, but the process's slots are full: its attempts stay on the spare ones for now.
    queues.finished('new:80', 20);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['n3']);
    queues.finished('a:80', 5);
    queues.finished('a:80', 5);
    // Now they have room: its two running attempts move over, and take them.
    queues.slowHosts();
    expect(queues.takeStartable()).toEqual([]);
    expect(queues.running).toBe(2);
    queues.finished('new:80', 5);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['a3']);
    expect(queues.running).toBe(2);
  });

  it('let a new host start on the process\'s slots when hung attempts take the spare ones', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 1, limit: 2 }, () => now);
    queues.add([delivery('x1', 'x:80'), delivery('y1', 'y:80')]);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['x1', 'y1']);
    now += SLOW_AFTER_MS;
    expect(queues.slowHosts()).toEqual(['x:80', 'y:80']);
    queues.add([delivery('n1', 'new:80'), delivery('m1', 'other:80'), delivery('o1', 'third:80')]);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['n1', 'm1']);
    expect(queues.running).toBe(4);
  });

  it('let a host that answers, however slowly, start on the process\'s slots when hung attempts take the spare ones', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 1, limit: 1 }, () => now);
    queues.add([delivery('x1', 'x:80')]);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['x1']);
    queues.add([delivery('s1', 'slow:80'), delivery('s2', 'slow:80')]);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['s1']);
    now += 1_500;
    expect(queues.slowHosts()).toEqual(['x:80', 'slow:80']);
    queues.finished('slow:80', 1_500);
    // Slow, and the spare slot is x's: the process's free one takes it.
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['s2']);
    expect(queues.runningOnSpare).toBe(1);
    expect(queues.running).toBe(2);
  });

  it('are found although a delivery was handed back unattempted meanwhile', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 2, limit: 4 }, () => now);
    queues.add([delivery('a1', 'a:80'), delivery('a2', 'a:80')]);
    expect(queues.takeStartable()).toHaveLength(2);
    now += SLOW_AFTER_MS - 100;
    queues.handedBack('a:80');
    now += 100;
    expect(queues.slowHosts()).toEqual(['a:80']);
  });

  it('never leave more than twice the process limit running', () => {
    let now = 1_000;
    const queues = new HostQueues({ hostLimit: 1, limit: 2 }, () => now);
    answer(queues, ['x:80', 'y:80', 'z:80', 'v:80', 'w:80']);
    queues.add(['x', 'y', 'z'].map((host) => delivery(`d-${host}`, `${host}:80`)));
    expect(queues.takeStartable()).toHaveLength(2);
    now += SLOW_AFTER_MS;
    expect(queues.slowHosts()).toEqual(['x:80', 'y:80']);
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d-z']);
    queues.add(['v', 'w'].map((host) => delivery(`d-${host}`, `${host}:80`)));
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d-v']);
    now += SLOW_AFTER_MS;
    // z and v are slow too, but the spare slots are taken: their attempts stay on the process's.
    expect(queues.slowHosts()).toEqual(['x:80', 'y:80', 'z:80', 'v:80']);
    expect(queues.takeStartable()).toEqual([]);
    expect(queues.running).toBe(4);
    // When x's attempt times out, z's moves to the spare slot it left, and w gets z's.
    queues.finished('x:80', 2 * SLOW_AFTER_MS);
    queues.slowHosts();
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d-w']);
    expect(queues.running).toBe(4);
    // y and z answer after all: their next attempts run on the process's slots, which v and w fill; x, still
    // slow, gets a spare one.
    queues.finished('y:80', 5);
    queues.finished('z:80', 5);
    queues.add(['x', 'y', 'z'].map((host) => delivery(`d-${host}2`, `${host}:80`)));
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d-x2']);
    expect(queues.running).toBe(3);
    // v's attempt moves to the other spare slot, and y's next takes the process's slot it left.
    queues.slowHosts();
    expect(queues.takeStartable().map((each) => each.id)).toEqual(['d-y2']);
    expect(queues.running).toBe(4);
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

describe('the slots of the per-host queues, under any sequence of events', () => {
  it('count every running attempt once, each set within the process limit, and no host above its limit', () => {
    const hosts = ['a:80', 'b:80', 'c:80', 'd:80'];
    const step = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), host: fc.constantFrom(...hosts), count: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('start' as const) }),
      fc.record({
        kind: fc.constant('end' as const),
        pick: fc.nat(),
        // Handed back unattempted, ended without an answer (-1), answered quickly, or answered slowly.
        tookMs: fc.oneof(fc.constant(undefined), fc.constant(-1), fc.integer({ min: 0, max: 10 }), fc.integer({ min: SLOW_AFTER_MS, max: 3 * SLOW_AFTER_MS })),
      }),
      // Now and then long enough for what the queues remember to expire.
      fc.record({ kind: fc.constant('look' as const), advanceMs: fc.oneof(fc.integer({ min: 0, max: 2 * SLOW_AFTER_MS }), fc.constant(SLOW_REMEMBERED_MS)) }),
      fc.record({ kind: fc.constant('handBack' as const), host: fc.option(fc.constantFrom(...hosts), { nil: undefined }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 60 }), (hostLimit, limit, steps) => {
        let now = 0;
        const queues = new HostQueues({ hostLimit, limit }, () => now);
        const running: string[] = [];
        let waiting = 0;
        let next = 0;
        for (const each of steps) {
          if (each.kind === 'add') {
            queues.add(Array.from({ length: each.count }, () => delivery(`d${next++}`, each.host)));
            waiting += each.count;
          } else if (each.kind === 'start') {
            const started = queues.takeStartable();
            running.push(...started.map((delivery) => delivery.host));
            waiting -= started.length;
          } else if (each.kind === 'end' && running.length > 0) {
            const [host] = running.splice(each.pick % running.length, 1);
            if (each.tookMs === undefined) queues.handedBack(host!);
            else queues.finished(host!, each.tookMs < 0 ? undefined : each.tookMs);
          } else if (each.kind === 'look') {
            now += each.advanceMs;
            queues.slowHosts();
          } else if (each.kind === 'handBack') {
            waiting -= queues.takeWaiting(each.host).length;
          }
          expect(queues.running).toBe(running.length);
          expect(queues.waiting).toBe(waiting);
          // Each set of slots within the limit, the spare ones and the process's.
          expect(queues.runningOnSpare).toBeGreaterThanOrEqual(0);
          expect(queues.runningOnSpare).toBeLessThanOrEqual(limit);
          expect(queues.running - queues.runningOnSpare).toBeLessThanOrEqual(limit);
          for (const host of hosts) expect(running.filter((each) => each === host).length).toBeLessThanOrEqual(hostLimit);
        }
      }),
      { numRuns: 500 },
    );
  });
});
