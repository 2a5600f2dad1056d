import { z } from 'zod';
import { decimalInteger } from '../schemas.ts';

export const MANAGE_MAX_PER_PAGE = 100;

/** `page` from 1, `per_page` 1–100 (default 25): decimal digits only, as every integer in a query. */
export const PageQuery = z.object({
  page: decimalInteger(1, 1_000_000).optional().default(1),
  per_page: decimalInteger(1, MANAGE_MAX_PER_PAGE).optional().default(25),
});

/** Laravel's paginator meta, without links (the dashboard pages by number). */
export function pageOf<T>(data: T[], total: number, page: number, perPage: number) {
  return {
    data,
    meta: {
      current_page: page,
      per_page: perPage,
      total,
      last_page: Math.max(1, Math.ceil(total / perPage)),
      from: data.length ? (page - 1) * perPage + 1 : null,
      to: data.length ? (page - 1) * perPage + data.length : null,
    },
  };
}
