import type { Knex } from '@timetable/db';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { subscriberHost, type Webhook } from './webhook.js';

interface WebhookRow {
  id: string;
  developer_id: string;
  url: string;
  secret: string | null;
  filter_scope: Webhook['filterScope'];
  filter_program_id: string | null;
  filter_semester_id: string | null;
  filter_course_id: string | null;
  filter_room_id: string | null;
  filter_instructor_id: string | null;
  event_types: Webhook['eventTypes'];
  is_active: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** Encrypts secrets on the way in, decrypts them on the way out. */
  cipher: SecretCipher;
}

/**
 * Webhooks that are not deleted; a deleted one is kept only as the parent of its failed deliveries.
 * Secrets are encrypted on the way in and decrypted on the way out, so no plaintext reaches the table.
 */
export class WebhookStore {
  private readonly knex: Knex;
  private readonly cipher: SecretCipher;

  constructor(deps: WebhookStoreDeps) {
    this.knex = deps.knex;
    this.cipher = deps.cipher;
  }

  /**
   * Inserts unless the developer already owns `limit` live webhooks. The count and the insert run under a
   * lock per developer, so concurrent creates cannot both slip under the limit.
   */
  async insertWithinLimit(webhook: Webhook, limit: number): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhooks-of:${webhook.developerId}`]);
      const row = await trx('webhooks').whereNull('deleted_at').where({ developer_id: webhook.developerId }).count({ count: '*' }).first();
      if (Number(row?.count ?? 0) >= limit) return false;
      await trx('webhooks').insert({
        id: webhook.id, developer_id: webhook.developerId, ...this.toColumns(webhook), created_at: webhook.createdAt, updated_at: webhook.updatedAt,
      });
      return true;
    });
  }

  async find(id: string): Promise<Webhook | undefined> {
    const row = await this.live().where({ id }).first<WebhookRow | undefined>();
    return row && this.fromRow(row);
  }

  async listFor(developerId: string): Promise<Webhook[]> {
    const rows = await this.live().where({ developer_id: developerId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return (rows as WebhookRow[]).map((row) => this.fromRow(row));
  }

  async countFor(developerId: string): Promise<number> {
    const row = await this.live().where({ developer_id: developerId }).count({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async update(webhook: Webhook): Promise<void> {
    await this.live().where({ id: webhook.id }).update({ ...this.toColumns(webhook), updated_at: webhook.updatedAt });
  }

  /** Final: the secret is dropped and every pending delivery fails, in one transaction. */
  async markDeleted(id: string, now: Date): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('webhooks').where({ id }).update({ deleted_at: now, updated_at: now, is_active: false, secret: null });
      await trx('deliveries')
        .where({ webhook_id: id, status: 'pending' })
        .update({ status: 'failed', next_retry_at: null, error_message: 'Webhook deleted', claim_token: null, claimed_until: null });
    });
  }

  private live() {
    return this.knex('webhooks').whereNull('deleted_at');
  }

  private toColumns(webhook: Webhook) {
    return {
      url: webhook.url,
      target_host: subscriberHost(webhook.url),
      secret: webhook.secret === null ? null : this.cipher.encrypt(webhook.secret, webhook.id),
      filter_scope: webhook.filterScope,
      filter_program_id: webhook.filterProgramId,
      filter_semester_id: webhook.filterSemesterId,
      filter_course_id: webhook.filterCourseId,
      filter_room_id: webhook.filterRoomId,
      filter_instructor_id: webhook.filterInstructorId,
      event_types: webhook.eventTypes,
      is_active: webhook.isActive,
      disabled_reason: webhook.disabledReason,
      disabled_at: webhook.disabledAt,
    };
  }

  private fromRow(row: WebhookRow): Webhook {
    return {
      id: row.id,
      developerId: row.developer_id,
      url: row.url,
      secret: row.secret === null ? null : this.cipher.decrypt(row.secret, row.id),
      filterScope: row.filter_scope,
      filterProgramId: row.filter_program_id,
      filterSemesterId: row.filter_semester_id,
      filterCourseId: row.filter_course_id,
      filterRoomId: row.filter_room_id,
      filterInstructorId: row.filter_instructor_id,
      eventTypes: row.event_types,
      isActive: row.is_active,
      disabledReason: row.disabled_reason,
      disabledAt: row.disabled_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
