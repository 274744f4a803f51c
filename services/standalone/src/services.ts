import type { ServiceModule } from '@timetable/http';
import type { EmbeddedContext } from './embedded-context.js';

/**
 * Builds every service of the embedded mode. Order matters at start: consumers are listed before the
 * producers whose events they must not miss (the in-process bus delivers only to running subscribers).
 */
export async function buildServices(_context: EmbeddedContext): Promise<ServiceModule[]> {
  return [];
}
