/**
 * Why a command was refused, in the domain's words. The API maps `kind` to an HTTP status
 * (not_found → 404, conflict → 409, invalid → 422, forbidden → 403, gone → 410) so the domain
 * never speaks HTTP.
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid' | 'forbidden' | 'gone' | 'payment_failed';

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    /** Field errors in the Laravel shape, for `invalid`. */
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
  }
}

export const notFound = (what: string, code = 'not_found') => new DomainError('not_found', code, `${what} not found.`);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
export const invalid = (code: string, message: string, field?: string) =>
  new DomainError('invalid', code, message, field ? { [field]: [message] } : undefined);
