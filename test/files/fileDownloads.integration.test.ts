import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadUrl, filesByIds } from '../../modules/files/index.ts';
import { loggedApp } from '../helpers/loggedApp.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { bytesOf, grant, multipartBody, productWithFiles, revoke } from './fileHarness.ts';

const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('files: upload, signed downloads, ranges, grants', () => {
  const clock = manualClock(Date.UTC(2026, 10, 27, 12, 0, 0));
  let server: TestServer;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  const content = bytesOf(3 * 1024 * 1024 + 17, 'zine');
  let fileId: string;
  let benefit: { productId: string; benefitId: string };
  let grantId: string;

  const upload = (token: string, file: { name: string; type: string; bytes: Buffer }, fields: Record<string, string> = {}, fieldName = 'file') => {
    const { body, contentType } = multipartBody(file, fields, fieldName);
    return server.fetch('/api/files', { method: 'POST', token, body, headers: { 'content-type': contentType } });
  };
  const link = (customerId: string, id = fileId) => downloadUrl(server.services, { organizationId: seller.organizationId, fileId: id, customerId });

  beforeAll(async () => {
    server = await startTestServer({ clock });
    seller = await server.identity();
    other = await server.identity('Other');
    const response = await upload(seller.token, { name: 'Zine #1 – «été».pdf', type: 'application/pdf', bytes: content }, { purpose: 'benefit' });
    expect(response.status).toBe(201);
    fileId = ((await response.json()) as { id: string }).id;
    benefit = await productWithFiles(server, seller.organizationId, 'zine', [fileId]);
    grantId = await grant(server, seller.organizationId, benefit, 'cus_buyer');
  }, 60_000);
  afterAll(() => server?.close({ remove: true }));

  it('answers the uploaded file with its size and SHA-256, in lists and by id, to its organization only', async () => {
    const one = await server.fetch(`/api/files/${fileId}`, { token: seller.token });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ id: fileId, object: 'file', filename: 'Zine #1 – «été».pdf', size: content.length, type: 'application/pdf', purpose: 'benefit', sha256: sha256(content), created: Math.floor(clock() / 1000) });
    const list = (await (await server.fetch('/api/files', { token: seller.token })).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((f) => f.id)).toEqual([fileId]);
    expect((await server.fetch(`/api/files/${fileId}`, { token: other.token })).status).toBe(404);
    expect(((await (await server.fetch('/api/files', { token: other.token })).json()) as { data: unknown[] }).data).toEqual([]);
    expect(await filesByIds(server.services.readStore, seller.organizationId, ['file_unknown', fileId])).toMatchObject([{ id: fileId, sha256: sha256(content) }]);
    expect(await filesByIds(server.services.readStore, other.organizationId, [fileId])).toEqual([]);
  });

  it('downloads the whole file by a fresh link: same checksum, ETag, Content-Disposition, Accept-Ranges', async () => {
    const url = link('cus_buyer');
    expect(url).toMatch(/^\/downloads\/file_[A-Za-z0-9]+\?customer=cus_buyer&expires=\d+&signature=[\w-]+$/);
    const response = await server.fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${sha256(content)}"`);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-length')).toBe(String(content.length));
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Zine #1 _ __t__.pdf"; filename*=UTF-8''${encodeURIComponent('Zine #1 – «été».pdf')}`);
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; sandbox/);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(content));

    const head = await server.fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(content.length));
    expect(head.headers.get('etag')).toBe(`"${sha256(content)}"`);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('resumes with a Range (206, Content-Range), honours If-Range by ETag, refuses a range past the end (416)', async () => {
    const url = link('cus_buyer');
    const cut = 1_000_003;
    const first = Buffer.from(await (await server.fetch(url, { headers: { range: `bytes=0-${cut - 1}` } })).arrayBuffer());
    expect(first.length).toBe(cut);
    const etag = `"${sha256(content)}"`;
    const rest = await server.fetch(url, { headers: { range: `bytes=${cut}-`, 'if-range': etag } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes ${cut}-${content.length - 1}/${content.length}`);
    expect(rest.headers.get('content-length')).toBe(String(content.length - cut));
    expect(sha256(Buffer.concat([first, Buffer.from(await rest.arrayBuffer())]))).toBe(sha256(content));

    const suffix = await server.fetch(url, { headers: { range: 'bytes=-10' } });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(content.subarray(content.length - 10));

    const changed = await server.fetch(url, { headers: { range: `bytes=${cut}-`, 'if-range': '"0000"' } });
    expect(changed.status).toBe(200);
    expect(sha256(Buffer.from(await changed.arrayBuffer()))).toBe(sha256(content));

    const past = await server.fetch(url, { headers: { range: `bytes=${content.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${content.length}`);
    await past.arrayBuffer();

    const notModified = await server.fetch(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
  });

  it('refuses a tampered link (403) and an expired one (410), each with a page', async () => {
    const url = new URL(link('cus_buyer'), server.url);
    const tamper = async (change: (u: URL) => void) => {
      const u = new URL(url);
      change(u);
      const response = await fetch(u, { headers: { accept: 'text/html' } });
      return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
    };
    const sig = url.searchParams.get('signature')!;
    for (const change of [
      (u: URL) => u.searchParams.set('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1)),
      (u: URL) => u.searchParams.set('customer', 'cus_other'),
      (u: URL) => u.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600)),
      (u: URL) => u.searchParams.delete('signature'),
      (u: URL) => u.searchParams.set('signature', ''),
      (u: URL) => (u.pathname = `/downloads/file_${'x'.repeat(20)}`),
    ]) {
      const refused = await tamper(change);
      expect(refused.status).toBe(403);
      expect(refused.type).toMatch(/^text\/html/);
      expect(refused.text).toContain('This download link is not valid');
    }
    clock.advance(15 * 60 * 1000);
    try {
      const expired = await fetch(url);
      expect(expired.status).toBe(410);
      expect(await expired.text()).toContain('This download link has expired');
      // A fresh link works again.
      expect((await server.fetch(link('cus_buyer'))).status).toBe(200);
    } finally {
      clock.advance(-15 * 60 * 1000);
    }
  });

  it("refuses a buyer without the grant, and a revoked grant's links", async () => {
    const stranger = await server.fetch(link('cus_stranger'));
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain('no longer available to you');

    const revokedId = await grant(server, seller.organizationId, benefit, 'cus_refunded');
    const url = link('cus_refunded');
    expect((await server.fetch(url, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    await revoke(server, seller.organizationId, revokedId);
    expect((await server.fetch(url)).status).toBe(403);
    expect(grantId).not.toBe(revokedId);
  });

  it('answers 429 past the per-link limit, to that link only', async () => {
    await grant(server, seller.organizationId, benefit, 'cus_eager');
    const url = link('cus_eager');
    const limit = server.services.config.DOWNLOAD_RATE_LIMIT_PER_LINK;
    const statuses: number[] = [];
    for (let i = 0; i <= limit; i++) statuses.push((await server.fetch(url, { headers: { range: 'bytes=0-0' } })).status);
    expect(statuses.slice(0, limit).every((s) => s === 206)).toBe(true);
    expect(statuses[limit]).toBe(429);
    // Another buyer's link to the same file is counted apart.
    expect((await server.fetch(link('cus_buyer'), { headers: { range: 'bytes=0-0' } })).status).toBe(206);
  });

  it('records each download once (a resumed piece is not another), the address only when the seller turns it on', async () => {
    await server.settle();
    const before = await downloadsOf('cus_buyer');
    await (await server.fetch(link('cus_buyer'))).arrayBuffer();
    await (await server.fetch(link('cus_buyer'), { headers: { range: 'bytes=5-' } })).arrayBuffer();
    await server.settle();
    const after = await downloadsOf('cus_buyer');
    expect(after).toMatchObject({ customer_id: 'cus_buyer', count: before!.count + 1, last_ip: null });

    const events = await server.services.store.readStream(`file_downloads-${fileId}`);
    expect(events.every((e) => (e.data as { ip: string | null }).ip === null && !JSON.stringify(e.metadata).includes('127.0.0.1'))).toBe(true);

    const put = await server.fetch('/api/file_settings', { method: 'PUT', token: seller.token, body: JSON.stringify({ record_download_ip: true }), headers: { 'content-type': 'application/json' } });
    expect(await put.json()).toEqual({ object: 'file_settings', record_download_ip: true });
    expect(await (await server.fetch('/api/file_settings', { token: seller.token })).json()).toEqual({ object: 'file_settings', record_download_ip: true });
    expect(await (await server.fetch('/api/file_settings', { token: other.token })).json()).toEqual({ object: 'file_settings', record_download_ip: false });
    await server.settle();
    await (await server.fetch(link('cus_buyer'))).arrayBuffer();
    await server.settle();
    expect(await downloadsOf('cus_buyer')).toMatchObject({ count: before!.count + 2, last_ip: '127.0.0.1' });
    expect((await server.fetch(`/api/files/${fileId}/downloads`, { token: other.token })).status).toBe(404);
  });

  const downloadsOf = async (customerId: string) => {
    const body = (await (await server.fetch(`/api/files/${fileId}/downloads`, { token: seller.token })).json()) as { data: Array<{ customer_id: string; count: number; last_ip: string | null }> };
    return body.data.find((d) => d.customer_id === customerId);
  };

  it('refuses bad uploads with a clear 4xx and keeps nothing of them', async () => {
    const json = await server.fetch('/api/files', { method: 'POST', token: seller.token, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect(await json.json()).toMatchObject({ code: 'unsupported_media_type' });
    const empty = await upload(seller.token, { name: 'empty.txt', type: 'text/plain', bytes: Buffer.alloc(0) });
    expect(empty.status).toBe(422);
    expect(await empty.json()).toMatchObject({ code: 'validation_failed', errors: { file: ['The file is empty.'] } });
    const field = await upload(seller.token, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('hello') }, {}, 'upload');
    expect(field.status).toBe(422);
    const purpose = await upload(seller.token, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('hello') }, { purpose: 'identity_document' });
    expect(purpose.status).toBe(422);
    expect(await purpose.json()).toMatchObject({ errors: { purpose: ['The purpose must be `benefit`.'] } });
    const late = await upload(seller.token, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('hello') }, {}, 'file');
    expect(late.status).toBe(201);
    const lateId = ((await late.json()) as { id: string }).id;
    await server.fetch(`/api/files/${lateId}`, { method: 'DELETE', token: seller.token });
    // The purpose after the file, or a second file: refused, and the stored file removed again.
    const after = multipartBody({ name: 'b.txt', type: 'text/plain', bytes: Buffer.from('hello') });
    const boundary = after.contentType.split('boundary=')[1]!;
    const withTrailer = (trailer: string) => Buffer.concat([after.body.subarray(0, after.body.length - `--${boundary}--\r\n`.length), Buffer.from(trailer.replaceAll('B', boundary))]);
    for (const [trailer, status] of [
      ['--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nidentity_document\r\n--B--\r\n', 422],
      ['--B\r\nContent-Disposition: form-data; name="file"; filename="c.txt"\r\nContent-Type: text/plain\r\n\r\nagain\r\n--B--\r\n', 422],
    ] as const) {
      const refused = await server.fetch('/api/files', { method: 'POST', token: seller.token, body: withTrailer(trailer), headers: { 'content-type': after.contentType } });
      expect(refused.status, await refused.clone().text()).toBe(status);
      expect(await refused.json()).toMatchObject({ code: 'validation_failed' });
    }
    const broken = await server.fetch('/api/files', { method: 'POST', token: seller.token, body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: 'malformed_multipart' });
    expect((await server.fetch('/api/files', { method: 'POST', body: 'x' })).status).toBe(401);
    await server.settle();
    const list = (await (await server.fetch('/api/files', { token: seller.token })).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((f) => f.id)).toEqual([fileId]);
    const stored = [];
    for await (const key of server.services.files.list()) stored.push(key);
    expect(stored).toEqual([fileId]);
  });

  it('keeps nothing of an upload whose client goes away half-way', async () => {
    const boundary = 'abortBoundary';
    const req = request(`${server.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seller.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 50 * 1024 * 1024 },
    });
    req.on('error', () => undefined);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    req.write(bytesOf(2 * 1024 * 1024, 'cut'));
    const incomplete = join(server.dataDir, 'files', '.incomplete');
    await expect.poll(() => (existsSync(incomplete) ? readdirSync(incomplete).length : 0), { timeout: 10_000 }).toBe(1);
    req.destroy();
    await expect.poll(() => readdirSync(incomplete).length, { timeout: 10_000 }).toBe(0);
    await server.settle();
    const stored = [];
    for await (const key of server.services.files.list()) stored.push(key);
    expect(stored).toEqual([fileId]);
    const events = await server.services.store.readAll({ after: null, limit: 10_000, streamPrefixes: ['file-'] });
    expect(events.filter((e) => e.type === 'FileUploaded' && (e.data as { filename: string }).filename === 'cut.bin')).toEqual([]);
  });

  it('takes an upload from the dashboard: a member with the session cookie and the CSRF token, not without the token', async () => {
    const member = await signedInPerson(server, { organizationId: seller.organizationId, role: 'member' });
    const { body, contentType } = multipartBody({ name: 'cover.png', type: 'image/png', bytes: Buffer.from('png bytes') });
    const send = (csrf: boolean) =>
      fetch(`${server.url}/manage/api/files`, {
        method: 'POST',
        body,
        headers: { 'content-type': contentType, accept: 'application/json', 'sec-fetch-site': 'same-origin', cookie: `commerce_session=${member.client.cookie}`, ...(csrf ? { 'x-csrf-token': member.client.csrf! } : {}) },
      });
    expect((await send(false)).status).toBe(403);
    const made = await send(true);
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { id: string }).id;
    const listed = await member.client.json<{ data: Array<{ id: string }> }>('GET', '/manage/api/files');
    expect(listed.body.data.map((f) => f.id)).toContain(id);
    expect((await member.client.request('DELETE', `/manage/api/files/${id}`)).status).toBe(200);
  });

  it('never logs the signature of a download link', async () => {
    const logged = await loggedApp(server.services);
    try {
      const url = link('cus_buyer');
      const signature = new URL(url, server.url).searchParams.get('signature')!;
      for (const path of [url, url.replace('/downloads/', '/downloads/x/'), `${url}&x=1`]) {
        const lines = await logged.logOf(path);
        expect(lines.join('\n')).toContain('/downloads/');
        expect(lines.join('\n')).not.toContain(signature);
      }
    } finally {
      await logged.app.close();
    }
  });

  it("deletes a file: gone from lists, its bytes removed, buyers' links answer 410", async () => {
    const response = await upload(seller.token, { name: 'old.txt', type: 'text/plain', bytes: Buffer.from('old') });
    const id = ((await response.json()) as { id: string }).id;
    const b = await productWithFiles(server, seller.organizationId, 'old', [id]);
    await grant(server, seller.organizationId, b, 'cus_buyer');
    expect((await server.fetch(link('cus_buyer', id))).status).toBe(200);
    expect((await server.fetch(`/api/files/${id}`, { method: 'DELETE', token: other.token })).status).toBe(404);
    const deleted = await server.fetch(`/api/files/${id}`, { method: 'DELETE', token: seller.token });
    expect(await deleted.json()).toEqual({ id, object: 'file', deleted: true });
    expect(await server.services.files.stat(id)).toBeNull();
    expect((await server.fetch(`/api/files/${id}`, { token: seller.token })).status).toBe(404);
    const gone = await server.fetch(link('cus_buyer', id));
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain('no longer available');
  });
});
