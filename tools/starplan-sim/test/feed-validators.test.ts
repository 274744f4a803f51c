import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';

/**
 * StarPlan sends no validators, and neither does the simulator by default. With `validators` it stands in for
 * an upstream that does: a group feed carries a weak ETag of the model's version and a request naming it is
 * answered 304, until anything changes the model.
 */
const running: RunningSimulator[] = [];
afterEach(async () => {
  for (const sim of running.splice(0)) await sim.stop();
});

async function start(validators: boolean): Promise<{ sim: RunningSimulator; feedUrl: string }> {
  const sim = await startSimulator({ seed: 11, today: '2024-03-20', validators });
  running.push(sim);
  const { model } = sim.simulator;
  const pgid = [...model.groups.keys()][0]!;
  return { sim, feedUrl: `${sim.url}/ical?lan=de&puid=${model.currentPuId}&type=pg&pgid=${pgid}` };
}

describe('group feed validators', () => {
  it('are absent by default, as from StarPlan', async () => {
    const { feedUrl } = await start(false);
    const response = await fetch(feedUrl, { headers: { 'if-none-match': 'W/"0"' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeNull();
  });

  it('answer 304 while the model is unchanged, and the feed again once a change or a reset happened', async () => {
    const { sim, feedUrl } = await start(true);
    const first = await fetch(feedUrl);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]+-\d+"$/);

    const again = await fetch(feedUrl, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    sim.simulator.churn(5, 1);
    const afterChurn = await fetch(feedUrl, { headers: { 'if-none-match': etag } });
    expect(afterChurn.status).toBe(200);
    const churned = afterChurn.headers.get('etag')!;
    expect(churned).not.toBe(etag);

    // Changes made through the admin API, some of which change the model directly.
    const reset = await fetch(`${sim.url}/__admin/reset`, { method: 'POST' });
    expect(reset.ok).toBe(true);
    expect((await fetch(feedUrl, { headers: { 'if-none-match': churned } })).status).toBe(200);
  });

  it('match a list of tags or *, weakly, and differ between two simulators of the same university', async () => {
    const { feedUrl } = await start(true);
    const etag = (await fetch(feedUrl)).headers.get('etag')!;
    const strong = etag.replace(/^W\//, '');
    for (const ifNoneMatch of [`"other", ${etag}`, strong, '*']) {
      expect((await fetch(feedUrl, { headers: { 'if-none-match': ifNoneMatch } })).status).toBe(304);
    }
    expect((await fetch(feedUrl, { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200);

    const { feedUrl: restartedUrl } = await start(true);
    const restarted = await fetch(restartedUrl, { headers: { 'if-none-match': etag } });
    expect(restarted.status).toBe(200);
  });

  it('change once an admin change has been made, not before', async () => {
    const { sim, feedUrl } = await start(true);
    const etag = (await fetch(feedUrl)).headers.get('etag')!;
    const lecture = [...sim.simulator.model.lectures.values()][0]!;
    const change = await fetch(`${sim.url}/__admin/change`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'renameLecture', args: { lectureId: lecture.id, name: 'Renamed' } }),
    });
    expect(change.ok).toBe(true);
    const after = await fetch(feedUrl, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('are left out of an answer a misbehaviour shapes', async () => {
    const { sim, feedUrl } = await start(true);
    const etag = (await fetch(feedUrl)).headers.get('etag')!;
    sim.simulator.misbehave('ical', { failure: 'empty' });
    const response = await fetch(feedUrl, { headers: { 'if-none-match': etag } });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeNull();
  });
});
