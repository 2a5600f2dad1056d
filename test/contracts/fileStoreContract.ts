import { createHash, randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FileNotFoundError, type FileStore } from '../../platform/files/index.ts';
import { useStoreFixtures, type StoreFixture } from './storeFixtures.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function keys(store: FileStore): Promise<string[]> {
  const out: string[] = [];
  for await (const key of store.list()) out.push(key);
  return out.sort();
}

/** Bytes that differ at every offset a range test looks at. */
function content(size: number, seed = 'c'): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let o = 0; o < size; o += block.length) {
    block.copy(out, o);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/** The same tests against any FileStore adapter; connections of one fixture stand for processes. */
export function fileStoreContract(name: string, factory: () => Promise<StoreFixture<FileStore>>): void {
  describe(`FileStore contract: ${name}`, () => {
    const { connections } = useStoreFixtures(factory);
    const key = () => `file_${randomUUID().replace(/-/g, '')}`;

    it('stores a stream whole, answering its size and SHA-256, and reads it back on another connection', async () => {
      const [a, b] = await connections(2);
      const k = key();
      const bytes = content(3 * 1024 * 1024 + 123);
      // Many small chunks, as a network upload arrives.
      const chunks = Array.from({ length: Math.ceil(bytes.length / 16_384) }, (_, i) => bytes.subarray(i * 16_384, (i + 1) * 16_384));
      const before = Date.now();
      expect(await a!.put(k, Readable.from(chunks))).toEqual({ size: bytes.length, sha256: sha256(bytes) });
      const stat = await b!.stat(k);
      expect(stat?.size).toBe(bytes.length);
      // Stored during the put, as the file system's or the database's clock tells it.
      expect(stat!.storedAt).toBeGreaterThanOrEqual(before - 2000);
      expect(stat!.storedAt).toBeLessThanOrEqual(Date.now() + 2000);
      expect(sha256(await read(await b!.open(k)))).toBe(sha256(bytes));
      expect(await keys(b!)).toEqual([k]);
    });

    it('reads byte ranges, both ends inclusive as in HTTP', async () => {
      const [a] = await connections(1);
      const k = key();
      const bytes = content(600 * 1024 + 7);
      await a!.put(k, Readable.from([bytes]));
      expect(await read(await a!.open(k, { start: 0, end: 0 }))).toEqual(bytes.subarray(0, 1));
      expect(await read(await a!.open(k, { start: 1000 }))).toEqual(bytes.subarray(1000));
      expect(await read(await a!.open(k, { end: 99 }))).toEqual(bytes.subarray(0, 100));
      // Across the GridFS chunk boundary (255 KiB) and the last byte.
      expect(await read(await a!.open(k, { start: 255 * 1024 - 3, end: 255 * 1024 + 2 }))).toEqual(bytes.subarray(255 * 1024 - 3, 255 * 1024 + 3));
      expect(await read(await a!.open(k, { start: bytes.length - 1, end: bytes.length - 1 }))).toEqual(bytes.subarray(bytes.length - 1));
    });

    it('stores an empty file', async () => {
      const [a] = await connections(1);
      const k = key();
      expect(await a!.put(k, Readable.from([]))).toEqual({ size: 0, sha256: sha256(Buffer.alloc(0)) });
      expect(await read(await a!.open(k))).toEqual(Buffer.alloc(0));
    });

    it('tells a missing key: open fails with FileNotFoundError, stat answers null, delete does nothing', async () => {
      const [a] = await connections(1);
      await expect(a!.open(key())).rejects.toBeInstanceOf(FileNotFoundError);
      expect(await a!.stat(key())).toBeNull();
      await a!.delete(key());
      expect(await keys(a!)).toEqual([]);
    });

    it('refuses a key that is no plain id', async () => {
      const [a] = await connections(1);
      for (const bad of ['../x', 'a/b', '', '.', 'x'.repeat(129)]) await expect(a!.put(bad, Readable.from([Buffer.from('x')]))).rejects.toThrow(/invalid file key/);
    });

    it('shows nothing of a write until it ends, then all of it', async () => {
      const [a, b] = await connections(2);
      const k = key();
      const source = new PassThrough();
      const put = a!.put(k, source);
      source.write(content(400 * 1024, 'half'));
      // Wait until the adapter has taken what was written (the source drained).
      await expect.poll(() => source.readableLength, { timeout: 10_000 }).toBe(0);
      expect(await b!.stat(k)).toBeNull();
      await expect(b!.open(k)).rejects.toBeInstanceOf(FileNotFoundError);
      expect(await keys(b!)).toEqual([]);
      // A sweep meanwhile leaves a write under way alone.
      await b!.sweep();
      await a!.sweep();
      source.end(content(100, 'end'));
      const stored = await put;
      expect(stored.size).toBe(400 * 1024 + 100);
      expect(sha256(await read(await b!.open(k)))).toBe(stored.sha256);
    });

    it('keeps nothing of a write whose source fails, and rejects with its error', async () => {
      const [a, b] = await connections(2);
      const k = key();
      const source = new PassThrough();
      const put = a!.put(k, source);
      source.write(content(300 * 1024));
      setTimeout(() => source.destroy(new Error('client went away')), 20);
      await expect(put).rejects.toThrow('client went away');
      expect(await b!.stat(k)).toBeNull();
      expect(await keys(b!)).toEqual([]);
      await expect(b!.open(k)).rejects.toBeInstanceOf(FileNotFoundError);
    });

    it('replaces a key as a whole, and a failed replacement leaves the old file', async () => {
      const [a, b] = await connections(2);
      const k = key();
      await a!.put(k, Readable.from([Buffer.from('first version')]));
      const failing = new PassThrough();
      const put = a!.put(k, failing);
      failing.write(Buffer.from('half of the second'));
      setTimeout(() => failing.destroy(new Error('cut')), 20);
      await expect(put).rejects.toThrow('cut');
      expect((await read(await b!.open(k))).toString()).toBe('first version');
      await a!.put(k, Readable.from([Buffer.from('second version')]));
      expect((await read(await b!.open(k))).toString()).toBe('second version');
      expect(await keys(b!)).toEqual([k]);
    });

    it('deletes a key for every connection', async () => {
      const [a, b] = await connections(2);
      const [k1, k2] = [key(), key()];
      await a!.put(k1, Readable.from([Buffer.from('one')]));
      await a!.put(k2, Readable.from([Buffer.from('two')]));
      await b!.delete(k1);
      expect(await a!.stat(k1)).toBeNull();
      await expect(a!.open(k1)).rejects.toBeInstanceOf(FileNotFoundError);
      expect(await keys(a!)).toEqual([k2]);
    });
  });
}
