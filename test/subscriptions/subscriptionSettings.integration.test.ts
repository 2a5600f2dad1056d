import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEFAULTS = { retry_days: [1, 3, 7, 14], final_action: 'canceled', grace_days: 7 };

describe('dunning settings over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close({ remove: true });
  });

  const put = (token: string, body: unknown) =>
    server.fetch('/api/subscription_settings', { method: 'PUT', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const get = async (token: string) => {
    const response = await server.fetch('/api/subscription_settings', { token });
    return { status: response.status, body: (await response.json()) as Body };
  };

  it('answers the defaults, takes an owner’s rules, and keeps each organization’s apart', async () => {
    const owner = await server.identity('Dunning Org');
    const other = await server.identity('Other Org');
    expect(await get(owner.token)).toEqual({ status: 200, body: DEFAULTS });
    const rules = { retry_days: [2, 5, 9], final_action: 'unpaid', grace_days: 3 };
    const changed = await put(owner.token, rules);
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual(rules);
    expect(await get(owner.token)).toEqual({ status: 200, body: rules });
    expect(await get(other.token)).toEqual({ status: 200, body: DEFAULTS });
    expect((await put(owner.token, { retry_days: [], final_action: 'canceled', grace_days: 0 })).status).toBe(200);
    expect((await get(owner.token)).body).toEqual({ retry_days: [], final_action: 'canceled', grace_days: 0 });
  });

  it('refuses bad rules with 422 and a code, never a 500', async () => {
    const owner = await server.identity('Strict Org');
    const cases: [unknown, string][] = [
      [{ retry_days: [3, 1], final_action: 'canceled', grace_days: 7 }, 'invalid_retry_days'],
      [{ retry_days: [0], final_action: 'canceled', grace_days: 7 }, 'invalid_retry_days'],
      [{ retry_days: [61], final_action: 'canceled', grace_days: 7 }, 'invalid_retry_days'],
      [{ retry_days: [1, 2, 3, 4, 5, 6, 7, 8, 9], final_action: 'canceled', grace_days: 7 }, ''],
      [{ retry_days: [1.5], final_action: 'canceled', grace_days: 7 }, ''],
      [{ retry_days: [1], final_action: 'deleted', grace_days: 7 }, ''],
      [{ retry_days: [1], final_action: 'canceled', grace_days: 61 }, 'invalid_grace_days'],
      [{ retry_days: [1], final_action: 'canceled', grace_days: -1 }, 'invalid_grace_days'],
      [{ retry_days: [1], final_action: 'canceled' }, ''],
      [{ retry_days: [1], final_action: 'canceled', grace_days: 7, extra: true }, ''],
      ['not an object', ''],
      [null, ''],
    ];
    for (const [body, code] of cases) {
      const response = await put(owner.token, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      const answer = (await response.json()) as Body;
      expect(answer.message, JSON.stringify(body)).toEqual(expect.any(String));
      if (code) expect(answer.code, JSON.stringify(body)).toBe(code);
    }
    expect((await get(owner.token)).body).toEqual(DEFAULTS);
  });

  it('lets a member read the rules and only an owner change them, by key and through the management API', async () => {
    const owner = await signedInPerson(server, { role: 'owner' });
    // Members make no keys: an owner's key, narrowed to a member's rights once its person is demoted.
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const memberKey = (await member.client.json<{ token: string }>('POST', '/manage/api/api-keys', { name: 'k' })).body.token;
    await server.settle();
    expect((await owner.client.json('PATCH', `/manage/api/members/${member.userId}`, { role: 'member' })).status).toBe(200);
    expect((await get(memberKey)).status).toBe(200);
    expect((await put(memberKey, DEFAULTS)).status).toBe(403);
    expect((await server.fetch('/api/subscription_settings')).status).toBe(401);

    expect(await member.client.json('GET', '/manage/api/subscription_settings')).toEqual({ status: 200, body: DEFAULTS });
    expect((await member.client.json('PUT', '/manage/api/subscription_settings', { ...DEFAULTS, grace_days: 1 })).status).toBe(403);
    const rules = { retry_days: [1, 2], final_action: 'unpaid', grace_days: 2 };
    expect(await owner.client.json('PUT', '/manage/api/subscription_settings', rules)).toEqual({ status: 200, body: rules });
    expect((await get(memberKey)).body).toEqual(rules);
    expect((await owner.client.json('PUT', '/manage/api/subscription_settings', { ...rules, retry_days: [5, 5] })).status).toBe(422);
    // Without the CSRF token a cookie alone changes nothing.
    const forged = await fetch(`${server.url}/manage/api/subscription_settings`, {
      method: 'PUT',
      headers: { cookie: `commerce_session=${owner.client.cookie}`, 'content-type': 'application/json', 'x-csrf-token': 'nope', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify(DEFAULTS),
    });
    expect(forged.status).toBe(403);
    expect((await get(memberKey)).body).toEqual(rules);
  });
});
