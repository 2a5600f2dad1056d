import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'undici';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';
import { startTestServer } from '../helpers/testServer.ts';

/**
 * The real server process at LOG_LEVEL=info, exercised on every route with every kind of secret a
 * client sends; its captured stdout and stderr must hold none of them.
 */
describe('logs of the real server process', () => {
  const dataDir = tempDataDir();
  let proc: ServerProcess;
  let routes: RouteInfo[];
  let token: string;
  let catchPath: string;
  let catchKeys: string[];

  beforeAll(async () => {
    // The route list comes from the app itself; the process below runs the same code.
    const probe = await startTestServer();
    routes = enumerateRoutes(probe.app);
    await probe.close({ remove: true });
    let organizationId: string;
    ({ token, organizationId } = await seedIdentity(dataDir));
    // A published offer and a real catch URL, so the flows below reach their handlers.
    ({ catchPath, catchKeys } = await withServices(dataDir, async (_s, ctx) => {
      const offer = await upsertOffer(ctx(organizationId), { organizationId, slug: 'log-offer', ...offerContent() });
      await publishOffer(ctx(organizationId), offer.uuid);
      const sequence = await createSequence(ctx(organizationId), { organizationId, name: 'Logs', actions: [] });
      const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name: 'Logs' });
      return { catchPath: `/hooks/catch/${sequence.route_key}/${trigger.route_key}`, catchKeys: [sequence.route_key, trigger.route_key] };
    }));
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'info' } });
  }, 60_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never writes a token, API key, card number, catch-URL secret or masked header value', async () => {
    const card = '4242424242424242';
    const amexCard = '378282246310005';
    const apiKeyHeader = 'xak_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const catchAuth = 'Basic c2VuZGVyOnMzY3IzdC1wYXNzd29yZA==';
    const cookie = 'session=ck_5ecret_cookie_value_0123456789';
    const catchKey = 'CatchSecretKey0123456789abcdefXYZ';
    const secrets = [token, token.split('_').at(-1)!, card, amexCard, apiKeyHeader, catchAuth, 'c2VuZGVyOnMzY3IzdC1wYXNzd29yZA', cookie.split('=')[1]!, catchKey];

    const body = JSON.stringify({
      offer: 'x',
      card_number: card,
      card: { number: amexCard, cvc: '123', exp_month: 12, exp_year: 2030 },
      payment_method: { card: { number: card } },
      token,
    });
    let requests = 0;
    for (const route of routes.filter((r) => r.method !== 'HEAD')) {
      // Catch-URL keys are secrets (the URL is the credential); other ids are not.
      const path = fillPath(route.url, () => (route.url.startsWith('/hooks/catch/') ? catchKey : 'x'));
      const variants: Array<{ query: string; headers: Record<string, string> }> = [
        { query: '', headers: { authorization: `Bearer ${token}` } },
        { query: `?api_token=${token}`, headers: {} },
        { query: `?api_token=${token}&card=${card}`, headers: { 'x-api-key': apiKeyHeader, authorization: catchAuth, cookie } },
      ];
      for (const v of variants) {
        const response = await request(`${proc.url}${path}${v.query}`, {
          method: route.method,
          headers: { accept: 'application/json', 'content-type': 'application/json', ...v.headers },
          ...(['GET', 'HEAD', 'TRACE'].includes(route.method) ? {} : { body }),
        });
        await response.body.arrayBuffer();
        requests += 1;
      }
    }
    // The real flows: a session paid by card, and the catch URL with credentials in its headers.
    const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
      fetch(`${proc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
    const created = await post('/api/checkout/sessions', { offer: 'log-offer', customer: { email: 'buyer@example.com' } });
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
    expect((await post(`/api/checkout/sessions/${sessionId}/start`, {})).status).toBe(200);
    const paid = await post(`/api/checkout/sessions/${sessionId}/pay`, { card: { number: card, exp_month: 12, exp_year: 2099, cvc: '123' } });
    expect(paid.status).toBe(200);
    const declined = await post(`/api/checkout/sessions/${sessionId}/pay`, { card: { number: '4000 0000 0000 0002', exp_month: 12, exp_year: 2099, cvc: '123' } });
    expect(declined.status).toBeGreaterThanOrEqual(400);
    const caught = await post(catchPath, { email: 'lead@example.com' }, { authorization: catchAuth, 'x-api-key': apiKeyHeader });
    expect(caught.status).toBe(200);
    // Other spellings of the catch URL: one the router takes as the catch route (it starts a
    // workflow), and ones that reach no route but carry the keys all the same.
    const [sequenceKey, triggerKey] = catchKeys as [string, string];
    const spellings = [`/%68ooks/catch/${sequenceKey}/${triggerKey}`, `/%2568ooks/catch/${sequenceKey}/${triggerKey}`, `//hooks/catch/${sequenceKey}/${triggerKey}`, `/hooks//catch/${sequenceKey}/${triggerKey}`, `/HOOKS/catch/${sequenceKey}/${triggerKey}`];
    const statuses = [];
    for (const path of spellings) {
      const response = await post(path, { email: 'lead@example.com' });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 404, 404, 404, 404]);
    secrets.push(...catchKeys, '4000000000000002', '4000 0000 0000 0002');
    // A request that fails validation, whose error message could echo the input.
    await (await fetch(`${proc.url}/api/users/me?api_token=${card}`, { headers: { authorization: `Bearer ${card}` } })).arrayBuffer();
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);

    const logs = proc.output();
    // The test can fail: the process did log every request, at info.
    expect(logs.match(/"msg":"incoming request"/g)?.length ?? 0).toBeGreaterThanOrEqual(requests);
    expect(logs).toContain('"url":"/api/users/me?api_token=[REDACTED]"');
    for (const secret of secrets) {
      const at = logs.indexOf(secret);
      expect(at, `found ${secret} in the logs: …${logs.slice(Math.max(0, at - 200), at + 100)}…`).toBe(-1);
    }
  }, 60_000);
});

/** Writes raw bytes on a new connection and resolves once the server has answered and closed it. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

/**
 * The same process at LOG_LEVEL=trace, sent requests its HTTP parser refuses: Node's parse error
 * carries the raw bytes it read (rawPacket), headers and body alike, and a debug line that logged
 * the error whole printed them.
 */
describe('logs of the real server process at LOG_LEVEL=trace', () => {
  const dataDir = tempDataDir();
  let proc: ServerProcess;

  beforeAll(async () => {
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'trace' } });
  }, 60_000);
  afterAll(async () => {
    await proc?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never writes the raw bytes of a request the HTTP parser refused', async () => {
    const token = 'csk_key_AbCdEfGhIjKlMnOp_0123456789abcdefghijABCDEFGHIJ';
    const catchKeys = ['RawSeqKey0123456789abcdef', 'RawTrgKey0123456789abcdef'];
    const card = '4242424242424242';
    const answers = [
      // A header name with a space: refused while the headers are read.
      await rawRequest(proc.url, `GET /hooks/catch/${catchKeys[0]}/${catchKeys[1]} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nBad Header: x\r\n\r\n`),
      // A chunk size that is not hex: refused in the body, after the card number was read.
      await rawRequest(
        proc.url,
        `POST /api/checkout/sessions/cs_x/pay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n30\r\n{"card":{"number":"${card}","cvc":"123"}}\r\nzz\r\n\r\n`,
      ),
    ];
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    await proc.stop();
    // A Buffer reaches a JSON log line as {"type":"Buffer","data":[bytes]}: read as the text it holds.
    const logs = proc.output().replace(/\{"type":"Buffer","data":\[([\d,]*)\]\}/g, (_m, bytes: string) =>
      Buffer.from(bytes.split(',').filter(Boolean).map(Number)).toString('latin1'),
    );
    // The test can fail: the refusals were logged, at debug.
    expect(logs.match(/"msg":"client error"/g)?.length ?? 0).toBe(2);
    for (const secret of [token, token.split('_').at(-1)!, ...catchKeys, card]) {
      const at = logs.indexOf(secret);
      expect(at, `found ${secret} in the logs: …${logs.slice(Math.max(0, at - 200), at + 100)}…`).toBe(-1);
    }
  }, 60_000);
});
