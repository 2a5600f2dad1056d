import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import type { Role } from '../../modules/identity/domain/user.ts';
import type { TestServer } from './testServer.ts';

/** A browser-like client of the management routes: keeps the session cookie and the CSRF token. */
export type ManageClient = {
  cookie: string | null;
  csrf: string | null;
  /** Same-origin request: the cookie, and on writes the CSRF token and a same-origin Sec-Fetch-Site. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
};

export function manageClient(server: TestServer): ManageClient {
  const client: ManageClient = {
    cookie: null,
    csrf: null,
    async request(method, path, body, extra = {}) {
      const headers: Record<string, string> = { accept: 'application/json', 'sec-fetch-site': 'same-origin', ...extra };
      if (client.cookie) headers.cookie = `commerce_session=${client.cookie}`;
      if (client.csrf && method !== 'GET') headers['x-csrf-token'] = client.csrf;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const set = response.headers.get('set-cookie');
      const match = set ? /commerce_session=([^;]*)/.exec(set) : null;
      if (match) client.cookie = match[1] || null;
      return response;
    },
    async json(method, path, body) {
      const response = await client.request(method, path, body);
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : null;
      if (parsed && typeof parsed.csrf_token === 'string') client.csrf = parsed.csrf_token;
      return { status: response.status, body: parsed };
    },
  };
  return client;
}

let counter = 0;

/** A new organization and a person in it who accepted their invitation with a password. */
export async function signedInPerson(
  server: TestServer,
  options: { organizationId?: string; role?: Role; password?: string } = {},
): Promise<{ client: ManageClient; userId: string; email: string; organizationId: string; password: string }> {
  counter += 1;
  const organizationId = options.organizationId ?? (await createOrganization(server.cliContext(), { name: `Org ${counter}`, timezone: 'UTC' })).id;
  const email = `person${counter}-${organizationId}@example.com`;
  const user = await createUser(server.cliContext(organizationId), { email, organizationId, role: options.role ?? 'owner' });
  const invitation = await inviteUser(server.cliContext(organizationId), user.id);
  const password = options.password ?? `correct horse ${counter}`;
  const client = manageClient(server);
  const accepted = await client.json('POST', '/manage/api/invitations/accept', { token: invitation.token, password });
  if (accepted.status !== 200) throw new Error(`accepting an invitation: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { client, userId: user.id, email, organizationId, password };
}
