import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import { bySpecificity, expressPath, type ApiRoute, type RouteGroup } from '@timetable/contracts';
import { developerIdOf, requireDeveloper, type DeveloperIdentity } from './developer-identity.js';
import { refuseControlCharactersInBody, refuseControlCharactersInQuery } from './control-characters.js';
import { parseInput } from './validation.js';

type Output<R, Key extends string, Otherwise> = R extends { [K in Key]: infer S extends z.ZodType } ? z.output<S> : Otherwise;

/** What a handler receives: the request's parts, parsed by the schemas of its contract entry. */
export interface RouteCall<R extends ApiRoute> {
  req: Request;
  res: Response;
  /** Path parameters, parsed before the handler runs. */
  params: Output<R, 'params', Record<string, never>>;
  /**
   * The query and the body are parsed when the handler asks for them, so it can check ownership first: a
   * caller learns nothing about another developer's webhook from the validation message of its body.
   */
  query(): Output<R, 'query', Record<string, never>>;
  body(): Output<R, 'body', undefined>;
  /** The verified caller on a key route. */
  developerId: R extends { auth: true } ? string : undefined;
}

export type RouteHandler<R extends ApiRoute> = (call: RouteCall<R>) => Promise<void> | void;

/** One handler per entry of the group: a missing or extra handler is a compile error. */
export type RouteHandlers<G extends RouteGroup> = { [K in keyof G]: RouteHandler<G[K]> };

export interface ContractRouterOptions {
  /** Needed when a route of the group needs an API key: it verifies the identity the gateway attached. */
  identity?: DeveloperIdentity;
}

/**
 * Registers a group of contract routes with their handlers: the Express path, the method, the key check
 * and the input parsing all come from the contract entry, so a route cannot be served differently from
 * how it is documented. Within the group, literal segments are matched before parameters
 * (`/week/current` before `/week/{week}`), whatever order the entries are written in; between groups the
 * order they are mounted in decides, so a service mounts a group with literal paths (free rooms) before
 * one whose parameter would take them (rooms).
 */
export function contractRouter<G extends RouteGroup>(group: G, handlers: RouteHandlers<G>, options: ContractRouterOptions = {}): Router {
  const router = Router();
  const entries = Object.entries(group).sort(([, a], [, b]) => bySpecificity(a.path, b.path));
  for (const [name, route] of entries) {
    const handler = handlers[name] as RouteHandler<ApiRoute>;
    const guards = route.auth ? [requireDeveloper(requiredIdentity(options, route))] : [];
    router[route.method](expressPath(route.path), ...guards, async (req, res) => {
      await handler(callOf(route, req, res));
    });
  }
  return router;
}

/**
 * The types of a call follow its route's schemas; here, for any route, they are only known at run time. A
 * control character is refused in any query parameter before the handler runs (it says nothing about the
 * resource, so it needs no ownership check first) and in any body string when the handler reads the body.
 */
function callOf(route: ApiRoute, req: Request, res: Response): RouteCall<ApiRoute> {
  const params = route.params ? parseInput(route.params, req.params, 'Path') : {};
  refuseControlCharactersInQuery(route.query, req.query);
  let query: unknown;
  const call = {
    req,
    res,
    params,
    query: () => {
      query ??= route.query ? parseInput(route.query, singleValues(route.query, req.query), 'Query') : {};
      return query;
    },
    body: () => (route.body ? parseBody(route.body, req.body) : undefined),
    developerId: route.auth ? developerIdOf(res) : undefined,
  };
  return call as RouteCall<ApiRoute>;
}

function parseBody(schema: z.ZodType, body: unknown): unknown {
  refuseControlCharactersInBody(body);
  return parseInput(schema, body ?? {}, 'Body');
}

/**
 * The 'simple' query parser turns a repeated parameter into a list. Where the contract declares a single
 * value, the first occurrence counts (the usual reading of `?a=1&a=2`); where it accepts a list, all do.
 */
function singleValues(schema: z.ZodObject, query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => {
      const field = schema.shape[name] as z.ZodType | undefined;
      const keepList = !Array.isArray(value) || (field !== undefined && field.safeParse(value).success);
      return [name, keepList ? value : value[0]];
    }),
  );
}

function requiredIdentity(options: ContractRouterOptions, route: ApiRoute): DeveloperIdentity {
  if (!options.identity) throw new Error(`${route.method.toUpperCase()} ${route.path} needs an API key: pass the developer identity`);
  return options.identity;
}
