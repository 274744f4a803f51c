import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * zod -> JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Schemas registered with an id arrive as local
 * `$defs`; they are hoisted into `components.schemas` and their references rewritten, because a
 * `#/$defs/...` pointer inside an OpenAPI document would resolve against the document root.
 */
export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
    const { $schema: _dialect, $defs, ...rest } = converted;
    const suffix = io === 'input' ? 'Input' : '';
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      this.components[`${name}${suffix}`] = rewriteRefs(definition, suffix) as JsonSchema;
    }
    return rewriteRefs(rest, suffix) as JsonSchema;
  }
}

function rewriteRefs(value: unknown, suffix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, suffix));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
        return [key, `#/components/schemas/${inner.slice('#/$defs/'.length)}${suffix}`];
      }
      return [key, rewriteRefs(inner, suffix)];
    }),
  );
}
