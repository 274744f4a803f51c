import { endSession, refusedByServer, withPooledConnection, type Knex, type PooledConnection } from '@timetable/db';
import { claimLockSql, type ClaimServerTimeouts } from './claim-due-sql.js';

/** The limits of a claim's transaction (milliseconds): the server's (claimLockSql), and how long the client waits. */
export interface ClaimTimeouts extends ClaimServerTimeouts {
  /** How long the dispatcher waits for the answer to each of the claim's statements. */
  answerMs: number;
}

/**
 * A claim takes milliseconds (up to a tenth of a second on a large backlog), and waits for another replica's
 * claim no longer than that one takes; these limits are for a claim that went wrong. Without them a dispatcher
 * whose connection went silent waited until the kernel stopped retransmitting (about 15 minutes), and the
 * server kept the claim lock for the other replicas until its keepalive gave the session up (over two hours).
 * The server's idle limit is well below the client's wait, so a replica that queued for the lock behind a
 * claimer that is gone still gets it within its own wait; the statement limit below it too, so that a claim
 * too slow is cancelled by the server, which answers, rather than abandoned by the client while the server
 * works on holding the lock.
 */
export const CLAIM_TIMEOUTS: ClaimTimeouts = { idleMs: 5_000, statementMs: 20_000, unacknowledgedMs: 10_000, answerMs: 30_000 };

/** The transaction a claim runs in: the claim lock, bounded waits, and a clean end when it goes wrong. */
export class ClaimTransaction {
  private readonly answerMs: number;
  private readonly lock: string;

  constructor(
    private readonly knex: Knex,
    timeouts: ClaimTimeouts,
  ) {
    this.answerMs = timeouts.answerMs;
    this.lock = claimLockSql(timeouts);
  }

  /**
   * Runs the claim in its transaction in three round trips where knex's transactions take four: BEGIN goes
   * with the lock, as one simple query of two statements. A claim is made every few hundred deliveries, and
   * each round trip waits for an event loop busy with attempts; knex's transaction machinery cost the event
   * loop about 3 % of a dispatch besides. Each statement's answer is waited for at most `answerMs`.
   */
  run<Row>(sql: string, bindings: readonly unknown[]): Promise<{ rows: Row[] }> {
    return withPooledConnection(this.knex, async (connection) => {
      const timed = <Result>(text: string, values?: readonly unknown[]) => connection.query<Result>({ text, ...(values ? { values } : {}), query_timeout: this.answerMs });
      try {
        await timed(`begin; ${this.lock}`);
        const result = await timed<Row>(sql, bindings);
        await timed('commit');
        return result;
      } catch (error) {
        await this.abandon(connection, error);
        throw error;
      }
    });
  }

  /**
   * A statement the server refused leaves its transaction aborted on a live connection: rolled back, the
   * connection serves on. Anything else, a statement that got no answer in time or a connection that broke,
   * leaves the session's state unknown (a rollback would wait behind the unanswered statement), and so does a
   * rollback that fails: the session is ended, and the server rolls the transaction back and frees the claim
   * lock as soon as it sees the session go. The pool drops the connection.
   */
  private async abandon(connection: PooledConnection, error: unknown): Promise<void> {
    let failure = error;
    if (refusedByServer(error)) {
      try {
        await connection.query({ text: 'rollback', query_timeout: this.answerMs });
        return;
      } catch (rollbackError) {
        failure = rollbackError;
      }
    }
    await endSession(connection, `a claim failed: ${(failure as Error).message}`, this.answerMs);
  }
}
