import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { baseUrl, decimalInteger, pageEnvelope, PageLinksSchema, PageMetaSchema, pageOf } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import type { RouteAccess } from './routeAccess.ts';

/**
 * What every list route of a bearer/manage pair shares: the bearer API pages with links and meta
 * (its default and maximum page sizes), the dashboard with its tables' 25 and 100.
 */
export function routeListing(access: RouteAccess, services: Services, perPage: { default: number; max: number }) {
  const token = access.bearer ? { api_token: z.string().optional() } : {};
  const paging = {
    per_page: decimalInteger(1, access.bearer ? perPage.max : 100).default(access.bearer ? perPage.default : 25),
    page: decimalInteger(1, 1_000_000).default(1),
    ...token,
  };
  const page = <T>(request: FastifyRequest, path: string, data: T[], total: number, q: { page: number; per_page: number }, query: Record<string, string | undefined> = {}) => {
    if (!access.bearer) return pageOf(data, total, q.page, q.per_page);
    const envelope = pageEnvelope({ path: `${baseUrl(services, request)}${access.prefix}/${path}`, page: q.page, perPage: q.per_page, defaultPerPage: perPage.default, total, itemCount: data.length, query });
    return { data, ...envelope };
  };
  const pageSchema = <S extends z.ZodType>(item: S) => z.object({ data: z.array(item), links: PageLinksSchema.optional(), meta: z.union([PageMetaSchema, z.record(z.string(), z.unknown())]) });
  return { token, paging, page, pageSchema };
}
