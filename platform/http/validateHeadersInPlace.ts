import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type RouteSchema<T> = Parameters<FastifySchemaCompiler<T>>[0];

/**
 * A route's validator compiler: zod's, except that an object schema of headers checks only the
 * headers it names, and request.headers stays the object node parsed. zod's validator hands fastify
 * a copy of every header, and fastify then merges a replaced headers object into yet another copy
 * on each read of request.headers. Only for schemas whose named values transform nothing and whose
 * other keys cannot fail (a z.looseObject of plain strings): their copy holds the same values.
 * Generic in the schema type because fastify types a route's compiler with the whole route schema.
 */
export const validateHeadersInPlace = <T>(route: RouteSchema<T>) => {
  const validate = validatorCompiler(route as RouteSchema<z.ZodType>);
  const schema: unknown = route.schema;
  if (route.httpPart !== 'headers' || !(schema instanceof z.ZodObject)) return validate;
  const names = Object.keys(schema.shape);
  return (headers: Record<string, unknown>) => {
    const named: Record<string, unknown> = {};
    for (const name of names) named[name] = headers[name];
    const result = validate(named);
    // true: valid, with no value for fastify to put in place of request.headers.
    return typeof result === 'object' && 'error' in result && result.error ? { error: result.error } : true;
  };
};
