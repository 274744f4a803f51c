/** Settings of the standalone simulator; the only place that reads the environment. */
import { z } from 'zod';

const integer = (fallback: number) => z.coerce.number().int().default(fallback);

const environmentSchema = z.object({
  SIM_PORT: integer(4010).pipe(z.number().min(0).max(65_535)),
  SIM_HOST: z.string().min(1).default('127.0.0.1'),
  SIM_SEED: integer(1),
  SIM_SCALE: z.coerce.number().positive().default(1),
  SIM_TODAY: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
  SIM_BASE_PATH: z.string().regex(/^\/[\w/-]*$/).default('/splan'),
  SIM_VALIDATORS: z.enum(['0', '1']).default('0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface SimulatorConfig {
  port: number;
  host: string;
  seed: number;
  scale: number;
  today?: string;
  basePath: string;
  /** Group feeds with ETags (SimulatorOptions.validators); StarPlan sends none. */
  validators: boolean;
  logLevel: string;
}

/** Throws with the names of the invalid variables, so a bad setting stops start-up. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): SimulatorConfig {
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  return {
    port: env.SIM_PORT,
    host: env.SIM_HOST,
    seed: env.SIM_SEED,
    scale: env.SIM_SCALE,
    ...(env.SIM_TODAY === undefined ? {} : { today: env.SIM_TODAY }),
    basePath: env.SIM_BASE_PATH,
    validators: env.SIM_VALIDATORS === '1',
    logLevel: env.LOG_LEVEL,
  };
}
