import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FILES } from '../../modules/files/fileProjection.ts';
import { eventuallyPasses, seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';
import { patternChunks } from './fileHarness.ts';

const MiB = 1024 * 1024;

/** /proc/<pid>/status fields in bytes (VmRSS: now; VmHWM: the peak since the last reset). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/**
 * Sends a multipart upload of `size` pattern bytes, streamed (never whole in this process), with
 * backpressure. `onSent` is told the bytes sent so far; returning false stops sending (the
 * request is left open, as a client cut off would leave it).
 */
function streamUpload(url: string, token: string, size: number, onSent: (sent: number) => boolean = () => true): Promise<{ status: number; body: string; sha256: string }> {
  const boundary = '----commerceUploadBoundary7MA4YWxkTrZu0gW';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbenefit\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length, accept: 'application/json' },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, sha256: hash.digest('hex') }));
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunks = patternChunks(size, 'big', 256 * 1024);
    let sent = 0;
    const pump = () => {
      if (answered) return;
      for (;;) {
        const next = chunks.next();
        if (next.done) {
          req.end(tail);
          return;
        }
        hash.update(next.value);
        sent += next.value.length;
        const more = req.write(next.value);
        if (!onSent(sent)) return;
        if (!more) {
          req.once('drain', pump);
          return;
        }
      }
    };
    req.write(head, pump);
  });
}

describe('large uploads in a real server process', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const server = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn', REQUEST_TIMEOUT_MS: '600000' } });
    servers.push(server);
    return server;
  };

  it('takes 300 MiB with the server’s peak RSS at most 64 MB above its baseline, checksum equal, and refuses 512 MiB + 1 with 413, keeping nothing', async () => {
    const dataDir = tempDataDir('commerce-upload-');
    dirs.push(dataDir);
    const seller = await seedIdentity(dataDir);
    const server = await start(dataDir);
    const pid = server.child.pid!;
    // Warm: the route, multipart and the file store loaded once, as in a running service.
    const warm = await streamUpload(server.url, seller.token, MiB);
    expect(warm.status).toBe(201);
    // The kernel's peak counter of the child, reset to now (Linux: clear_refs 5), is the measure.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const baseline = memoryOf(pid).rss;
    let sampledPeak = baseline;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss)), 25);
    let uploaded;
    try {
      uploaded = await streamUpload(server.url, seller.token, 300 * MiB);
    } finally {
      clearInterval(sampler);
    }
    const peak = Math.max(memoryOf(pid).hwm, sampledPeak);
    expect(uploaded.status, uploaded.body).toBe(201);
    const file = JSON.parse(uploaded.body) as { id: string; size: number; sha256: string };
    expect(file.size).toBe(300 * MiB);
    expect(file.sha256).toBe(uploaded.sha256);
    expect(statSync(join(dataDir, 'files', file.id)).size).toBe(300 * MiB);
    console.log(`300 MiB upload: server RSS baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${((peak - baseline) / 1e6).toFixed(1)} MB`);
    expect(peak - baseline).toBeLessThanOrEqual(64e6);

    const tooLarge = await streamUpload(server.url, seller.token, 512 * MiB + 1);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toEqual({ message: 'A file may be up to 512 MiB.', code: 'file_too_large' });
    const listed = (await (await fetch(`${server.url}/api/files`, { headers: { authorization: `Bearer ${seller.token}`, accept: 'application/json' } })).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((f) => f.id).sort()).toEqual([file.id, JSON.parse(warm.body).id].sort());
    expect(readdirSync(join(dataDir, 'files')).filter((n) => n !== '.incomplete').sort()).toEqual([file.id, JSON.parse(warm.body).id].sort());
    expect(readdirSync(join(dataDir, 'files', '.incomplete'))).toEqual([]);
  }, 300_000);

  it('leaves no file served and no FileUploaded when the server is killed mid-upload, and sweeps the leftover on restart', async () => {
    const dataDir = tempDataDir('commerce-kill-');
    dirs.push(dataDir);
    const seller = await seedIdentity(dataDir);
    const server = await start(dataDir);
    const incomplete = join(dataDir, 'files', '.incomplete');
    let stopAt = Infinity;
    const upload = streamUpload(server.url, seller.token, 200 * MiB, (sent) => {
      if (sent >= 40 * MiB && stopAt === Infinity) stopAt = sent;
      return sent < stopAt;
    }).catch((error: unknown) => error);
    // Killed once part of the file is on disk under its incomplete name.
    await eventuallyPasses(async () => {
      const names = existsSync(incomplete) ? readdirSync(incomplete) : [];
      expect(names.length).toBe(1);
      expect(statSync(join(incomplete, names[0]!)).size).toBeGreaterThan(8 * MiB);
    }, 60_000);
    server.child.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
    expect(await upload).toBeInstanceOf(Error);

    expect(readdirSync(incomplete)).toHaveLength(1);
    expect(readdirSync(join(dataDir, 'files')).filter((n) => n !== '.incomplete')).toEqual([]);
    const uploadedEvents = await withServices(dataDir, async (services) => {
      const fileEvents = await services.store.readAll({ after: null, limit: 10_000, streamPrefixes: ['file-'] });
      return { count: fileEvents.filter((e) => e.type === 'FileUploaded').length, docs: await services.readStore.count(FILES) };
    });
    expect(uploadedEvents).toEqual({ count: 0, docs: 0 });

    const again = await start(dataDir);
    expect(readdirSync(incomplete)).toEqual([]);
    const listed = (await (await fetch(`${again.url}/api/files`, { headers: { authorization: `Bearer ${seller.token}`, accept: 'application/json' } })).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
  }, 180_000);
});
