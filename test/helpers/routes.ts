import type { FastifyInstance } from 'fastify';

export type RouteInfo = {
  method: string;
  /** The pattern as registered: `/api/catalog/products/:product`. */
  url: string;
  params: string[];
  /** Keys of the zod object schemas of the body and query string, when the route declares them. */
  bodyKeys: string[];
  queryKeys: string[];
  /** Declared as needing the bearer API key (security in the OpenAPI document). */
  protected: boolean;
  /** Declared as needing a signed-in person's session cookie (the management routes). */
  session: boolean;
  rateLimited: boolean;
  hidden: boolean;
};

function keysOf(schema: unknown): string[] {
  if (schema && typeof schema === 'object' && 'shape' in schema) {
    const shape = (schema as { shape: unknown }).shape;
    if (shape && typeof shape === 'object') return Object.keys(shape);
  }
  return [];
}

const securityNames = (security: unknown): string[] =>
  Array.isArray(security) ? security.flatMap((s: unknown) => (s && typeof s === 'object' ? Object.keys(s) : [])) : [];

/**
 * Every route the app registered (from fastify itself, not a hand-written list), one entry per
 * method, so tests cover routes that land after they were written.
 */
export function enumerateRoutes(app: FastifyInstance): RouteInfo[] {
  const seen = new Set<string>();
  const out: RouteInfo[] = [];
  for (const route of app.registeredRoutes()) {
    const key = `${route.method} ${route.url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; security?: unknown; hide?: boolean };
    const config = (route.config ?? {}) as { rateLimit?: unknown };
    out.push({
      method: route.method,
      url: route.url,
      params: [...route.url.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((m) => m[1] ?? '*'),
      bodyKeys: keysOf(schema.body),
      queryKeys: keysOf(schema.querystring),
      protected: securityNames(schema.security).includes('bearer'),
      session: securityNames(schema.security).includes('session'),
      rateLimited: config.rateLimit !== undefined && config.rateLimit !== false,
      hidden: schema.hide === true,
    });
  }
  return out;
}

/** The route's path with each parameter replaced by the (already encoded) value given for it. */
export function fillPath(url: string, value: (param: string) => string): string {
  return url.replace(/:([A-Za-z0-9_]+)|\*/g, (_m, name: string | undefined) => value(name ?? '*'));
}
