/**
 * The connections the sync's store keeps open, opened at start. A run holds one for its advisory lock and
 * works on at most two more at once (the stored hashes beside the last run, the snapshot's index beside the
 * feed records, the run's record beside the snapshot's counts); the outbox relay polls on one of its own. Runs come SYNC_INTERVAL_SECONDS apart (300 s
 * by default), longer than the pool's idle timeout (30 s), so a pool that kept none would open them again in
 * every run, and a restarted process would open them inside its first run.
 */
export const SYNC_CONNECTIONS_KEPT = 4;
