import type { CatalogStatistics } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

export interface StatisticsStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class StatisticsStore {
  private readonly knex: Knex;

  constructor(deps: StatisticsStoreDeps) {
    this.knex = deps.knex;
  }

  /** One round trip; programs counts only active ones, the others are plain row counts. */
  async counts(): Promise<CatalogStatistics> {
    const result = await this.knex.raw<{ rows: CatalogStatistics[] }>(`
      select
        (select count(*) from programs where is_active) as programs,
        (select count(*) from semesters) as semesters,
        (select count(*) from courses) as courses,
        (select count(*) from rooms) as rooms,
        (select count(*) from instructors) as instructors,
        (select count(*) from events) as events`);
    const row = result.rows[0];
    if (!row) throw new Error('statistics query returned no row');
    return row;
  }
}
