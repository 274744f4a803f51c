/** What one scale of the sync bench reports, and how it is printed. */
import type { UpstreamWarmUp } from '../support/warm-upstream.js';
import type { RunStep, Step } from './measure-step.js';

type Shared<T> = T & { shareOfFirst: number };

export interface ScaleReport {
  scale: number;
  events: number;
  entities: number;
  upstreamWarmUp: UpstreamWarmUp;
  firstSync: RunStep;
  publishOutbox: Step;
  /** The first unchanged re-sync in the process (its code runs for the first time), then one right after. */
  unchangedResync: Shared<RunStep>;
  unchangedResyncWarm: Shared<RunStep>;
  churn: { operations: number; eventsChanged: number; shareOfEvents: number };
  churnResync: Shared<RunStep>;
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

function runLine(name: string, step: RunStep & { shareOfFirst?: number }): string {
  return (
    `  ${name}: ${step.seconds.toFixed(2)} s${step.shareOfFirst === undefined ? '' : ` (${percent(step.shareOfFirst)} of the first sync)`}, ` +
    `CPU ${step.cpuSeconds.toFixed(2)} s (the upstream's ${step.upstreamCpuSeconds.toFixed(2)} s), RSS ${step.startRssMb} MB at start, peak ${step.peakRssMb} MB, ` +
    `${step.created}/${step.updated}/${step.deleted} created/updated/deleted, feeds parsed ${step.feedsParsed}, unchanged ${step.feedsUnchanged}, ${step.status}` +
    (step.upstreamUnchanged ? ', upstream unchanged' : '')
  );
}

export function describeScale(report: ScaleReport): string {
  const { upstreamWarmUp: warmUp, publishOutbox: publish, churn } = report;
  return [
    `scale ${report.scale}: ${report.entities} entities, ${report.events} events`,
    `  upstream warmed on planning unit ${warmUp.planningUnit} (${warmUp.feeds} feeds)`,
    runLine('first sync', report.firstSync),
    `  publishing its outbox: ${publish.seconds.toFixed(2)} s, peak RSS ${publish.peakRssMb} MB`,
    runLine('unchanged re-sync', report.unchangedResync),
    runLine('unchanged re-sync, warm', report.unchangedResyncWarm),
    `  churn: ${churn.operations} simulator changes, ${churn.eventsChanged} events changed (${percent(churn.shareOfEvents)})`,
    runLine('re-sync after the churn', report.churnResync),
  ].join('\n');
}
