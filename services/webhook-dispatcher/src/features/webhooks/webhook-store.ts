import type { Knex } from '@timetable/db';
import type { Webhook, WebhookFields } from './webhook.js';

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
  created_at: Date;
  updated_at: Date;
}

/** Webhooks that are not deleted; a deleted one is kept only as the parent of its failed deliveries. */
export class WebhookStore {
  constructor(private readonly knex: Knex) {}

  async insert(webhook: Webhook): Promise<void> {
    await this.knex('webhooks').insert({ id: webhook.id, developer_id: webhook.developerId, ...toColumns(webhook), created_at: webhook.createdAt, updated_at: webhook.updatedAt });
  }

  async find(id: string): Promise<Webhook | undefined> {
    const row = await this.live().where({ id }).first<WebhookRow | undefined>();
    return row && fromRow(row);
  }

  async listFor(developerId: string): Promise<Webhook[]> {
    const rows = await this.live().where({ developer_id: developerId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return (rows as WebhookRow[]).map(fromRow);
  }

  async countFor(developerId: string): Promise<number> {
    const row = await this.live().where({ developer_id: developerId }).count({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async update(webhook: Webhook): Promise<void> {
    await this.live().where({ id: webhook.id }).update({ ...toColumns(webhook), updated_at: webhook.updatedAt });
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
}

function toColumns(fields: WebhookFields) {
  return {
    url: fields.url,
    secret: fields.secret,
    filter_scope: fields.filterScope,
    filter_program_id: fields.filterProgramId,
    filter_semester_id: fields.filterSemesterId,
    filter_course_id: fields.filterCourseId,
    filter_room_id: fields.filterRoomId,
    filter_instructor_id: fields.filterInstructorId,
    event_types: fields.eventTypes,
    is_active: fields.isActive,
  };
}

function fromRow(row: WebhookRow): Webhook {
  return {
    id: row.id,
    developerId: row.developer_id,
    url: row.url,
    secret: row.secret,
    filterScope: row.filter_scope,
    filterProgramId: row.filter_program_id,
    filterSemesterId: row.filter_semester_id,
    filterCourseId: row.filter_course_id,
    filterRoomId: row.filter_room_id,
    filterInstructorId: row.filter_instructor_id,
    eventTypes: row.event_types,
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
