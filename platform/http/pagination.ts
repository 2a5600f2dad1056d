import { z } from 'zod';

const link = z.string().nullable();

/** Laravel's LengthAwarePaginator `links`: absolute URLs with `page`, or null. */
export const PageLinksSchema = z
  .object({ first: link, last: link, prev: link, next: link })
  .describe('Absolute URLs with the page query parameter, or null.');

export const PageMetaSchema = z.object({
  current_page: z.number().int(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  path: z.string(),
  per_page: z.number().int(),
  to: z.number().int().nullable(),
  total: z.number().int(),
});

export type PageEnvelope = { links: z.infer<typeof PageLinksSchema>; meta: z.infer<typeof PageMetaSchema> };

/**
 * The links and meta of one page, as Laravel's paginator writes them: `page` first, then
 * `per_page` when it is not the route's default, then the filters in `query` a link must keep.
 */
export function pageEnvelope(input: {
  path: string;
  page: number;
  perPage: number;
  defaultPerPage: number;
  total: number;
  itemCount: number;
  query?: Record<string, string | undefined>;
}): PageEnvelope {
  const { path, page, perPage, defaultPerPage, total, itemCount } = input;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const url = (n: number) => {
    const params = new URLSearchParams({ page: String(n) });
    if (perPage !== defaultPerPage) params.set('per_page', String(perPage));
    for (const [key, value] of Object.entries(input.query ?? {})) if (value !== undefined) params.set(key, value);
    return `${path}?${params.toString()}`;
  };
  const from = itemCount > 0 ? (page - 1) * perPage + 1 : null;
  return {
    links: {
      first: url(1),
      last: url(lastPage),
      prev: page > 1 ? url(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? url(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      path,
      per_page: perPage,
      to: from === null ? null : from + itemCount - 1,
      total,
    },
  };
}
