import { describe, expect, it } from 'vitest';
import { bySpecificity, expressPath, firstSegment, RouteMatcher } from '@timetable/contracts';

type Entry = { method: 'get' | 'post' | 'patch' | 'delete'; path: string };

const routes: Entry[] = [
  { method: 'get', path: '/week/{week}' },
  { method: 'get', path: '/week/current' },
  { method: 'get', path: '/rooms/{id}' },
  { method: 'get', path: '/rooms/free' },
  { method: 'get', path: '/rooms/{id}/schedule' },
  { method: 'post', path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver' },
  { method: 'get', path: '/files/report.v1+json' },
];

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher(routes);

  it('finds the most specific route whatever order the routes were given in', () => {
    expect(matcher.find('/week/current')?.path).toBe('/week/current');
    expect(matcher.find('/week/12')?.path).toBe('/week/{week}');
    expect(new RouteMatcher([...routes].reverse()).find('/rooms/free')?.path).toBe('/rooms/free');
    expect(matcher.find('/rooms/free/schedule')?.path).toBe('/rooms/{id}/schedule');
  });

  it('matches as Express does: any case, a trailing slash, one non-empty segment per parameter', () => {
    expect(matcher.find('/ROOMS/Free/')?.path).toBe('/rooms/free');
    expect(matcher.find('/rooms/42/')?.path).toBe('/rooms/{id}');
    expect(matcher.find('/rooms/')).toBeUndefined();
    expect(matcher.find('/rooms/42/schedule/extra')).toBeUndefined();
    expect(matcher.find('/rooms/a/b')).toBeUndefined();
  });

  it('reads literal segments literally, characters that mean something in a pattern included', () => {
    expect(matcher.find('/files/report.v1+json')?.path).toBe('/files/report.v1+json');
    expect(matcher.find('/files/reportXv1json')).toBeUndefined();
  });

  it('narrows to a method when asked, reading HEAD as GET', () => {
    const path = '/webhooks/a/deliveries/b/redeliver';
    expect(matcher.find(path, 'POST')?.path).toBe('/webhooks/{id}/deliveries/{deliveryId}/redeliver');
    expect(matcher.find(path, 'GET')).toBeUndefined();
    expect(matcher.find(path)?.method).toBe('post');
    expect(matcher.find('/week/current', 'HEAD')?.path).toBe('/week/current');
  });
});

describe('expressPath', () => {
  it('turns each {parameter} into :parameter', () => {
    expect(expressPath('/webhooks/{id}/deliveries/{deliveryId}/redeliver')).toBe('/webhooks/:id/deliveries/:deliveryId/redeliver');
    expect(expressPath('/rooms/free')).toBe('/rooms/free');
  });
});

describe('bySpecificity', () => {
  it('orders a literal segment before a parameter at the same position', () => {
    const sorted = ['/week/{week}', '/rooms/{id}/schedule', '/week/current', '/rooms/free', '/rooms/{id}'].sort(bySpecificity);
    expect(sorted.indexOf('/week/current')).toBeLessThan(sorted.indexOf('/week/{week}'));
    expect(sorted.indexOf('/rooms/free')).toBeLessThan(sorted.indexOf('/rooms/{id}'));
    expect(sorted.indexOf('/rooms/free')).toBeLessThan(sorted.indexOf('/rooms/{id}/schedule'));
  });
});

describe('firstSegment', () => {
  it('is the lower-cased first segment, empty for a path that has none', () => {
    expect(firstSegment('/Webhooks/42')).toBe('webhooks');
    expect(firstSegment('/webhooks')).toBe('webhooks');
    expect(firstSegment('/')).toBe('');
    expect(firstSegment('webhooks')).toBe('');
  });
});
