import type { CourseResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { CourseFilter, CoursesStore } from './courses-store.js';

export interface CoursesServiceDeps {
  courses: CoursesStore;
}

export class CoursesService {
  private readonly courses: CoursesStore;

  constructor(deps: CoursesServiceDeps) {
    this.courses = deps.courses;
  }

  list(filter: CourseFilter): Promise<CourseResource[]> {
    return this.courses.list(filter);
  }

  async get(id: string): Promise<CourseResource> {
    const course = isUuid(id) ? await this.courses.byId(id) : null;
    if (!course) throw new NotFoundError('course', id);
    return course;
  }
}
