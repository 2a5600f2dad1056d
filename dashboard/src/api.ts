/**
 * The one way the dashboard talks to the service: `/manage/api` with the session cookie (HttpOnly,
 * never seen here) and, on writes, the X-CSRF-Token header. The CSRF token lives in memory only,
 * set from the session answer; nothing is kept in localStorage.
 */

/** A failed request in the service's Laravel shape: `{message, code, errors: {field: [..]}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Field errors, by field name as the route's body names it (`plans.0.name` for nested ones). */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }

  /** The first message for a field, to show beside it. */
  field(name: string): string | undefined {
    return this.fields[name]?.[0];
  }
}

let csrfToken: string | null = null;
/**
 * The highest log position this page's writes reached (Commerce-Position), sent back on reads so
 * they see those writes whichever process serves them (read-your-writes, docs/api.md).
 */
let position: number | null = null;

/** Keeps the higher of the known position and one an answer carries. */
export function notePosition(header: string | null): void {
  const value = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  if (value !== null && (position === null || value > position)) position = value;
}
let onUnauthenticated: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** What a 401 does (the app sends the person to sign in, then back). */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

export type RequestOptions = {
  /** Answer a 401 as an ApiError instead of leaving for the sign-in page (the session probe, sign-in forms). */
  allowUnauthenticated?: boolean;
  signal?: AbortSignal;
};

export type Query = Record<string, string | number | boolean | null | undefined>;

/** `?a=1&b=x`, without the empty values (an empty filter is no filter). */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if ((method === 'GET' || method === 'HEAD') && position !== null) headers['commerce-position'] = String(position);
  let response: Response;
  try {
    response = await fetch(`/manage/api${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection and try again.');
  }
  notePosition(response.headers.get('commerce-position'));
  if (response.status === 204) return undefined as T;
  const json = parseJson(await response.text());
  if (response.ok) return json as T;
  const error = errorOf(response.status, json);
  if (response.status === 401 && !options.allowUnauthenticated) onUnauthenticated();
  throw error;
}

/** An answer's body as JSON; null when empty or not JSON. */
function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** A failed answer's body as an ApiError. */
function errorOf(status: number, json: unknown): ApiError {
  const e = (json ?? {}) as { message?: unknown; code?: unknown; errors?: unknown };
  return new ApiError(
    status,
    typeof e.code === 'string' ? e.code : `http_${status}`,
    typeof e.message === 'string' ? e.message : `The service answered ${status}.`,
    e.errors && typeof e.errors === 'object' ? (e.errors as Record<string, string[]>) : {},
  );
}

/**
 * Sends one file as multipart (field `file`, then the other fields) and reports the bytes sent:
 * XMLHttpRequest, because fetch tells nothing of an upload's progress. The browser streams the
 * file from disk; nothing here reads it whole.
 */
export function upload<T>(
  path: string,
  file: File,
  options: { fields?: Record<string, string>; onProgress?: (sent: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/manage/api${path}`);
    xhr.setRequestHeader('accept', 'application/json');
    if (csrfToken) xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (event) => options.onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The upload stopped: the service could not be reached. Check your connection and try again.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    xhr.onload = () => {
      notePosition(xhr.getResponseHeader('commerce-position'));
      const json = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as T);
      if (xhr.status === 401) onUnauthenticated();
      reject(errorOf(xhr.status, json));
    };
    options.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    // Fields before the file: a streaming server reads them before the file's bytes.
    for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

export const api = {
  get: <T>(path: string, query?: Query, options?: RequestOptions) => request<T>('GET', `${path}${queryString(query)}`, undefined, options),
  post: <T>(path: string, body: unknown = {}, options?: RequestOptions) => request<T>('POST', path, body, options),
  put: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  delete: <T = void>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
};

/** Laravel's paginator meta, as every management list answers it. */
export type PageMeta = { current_page: number; last_page: number; per_page: number; total: number; from: number | null; to: number | null };
export type Paged<T> = { data: T[]; meta: PageMeta };
