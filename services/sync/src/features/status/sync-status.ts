/** `/sync/status`: when the upstream was last read, from which planning unit, and the latest run's error. */
import type { SyncStatusResource } from '@timetable/contracts';
import type { SyncRunStore } from '../write/sync-run-store.js';

export async function readSyncStatus(runs: SyncRunStore, baseUrl: string): Promise<SyncStatusResource> {
  const [latest, lastFetched] = await Promise.all([runs.latest(), runs.latest({ fetched: true })]);
  const [firstError] = latest ? await runs.errorsOf(latest.id) : [];
  return {
    lastFetchedAt: lastFetched?.finishedAt.toISOString() ?? null,
    currentPu: lastFetched?.planningUnitId ?? null,
    baseUrl,
    lastError: firstError
      ? {
          errorMessage: firstError.errorMessage,
          updatedAt: firstError.occurredAt.toISOString(),
          programId: firstError.programId,
          semesterId: firstError.semesterId,
        }
      : null,
  };
}
