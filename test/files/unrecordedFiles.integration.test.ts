import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileDecider, fileStream } from '../../modules/files/domain/file.ts';
import { removeUnrecordedFiles, UNRECORDED_AFTER_MS } from '../../modules/files/jobs/sweepIncompleteUploads.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { multipartBody } from './fileHarness.ts';

/** What a crash between storing a file's bytes and its record (or its deletion and their removal) leaves. */
describe('bytes no file record stands for', () => {
  let server: TestServer;
  let seller: { organizationId: string; token: string };
  beforeAll(async () => {
    server = await startTestServer();
    seller = await server.identity();
  }, 60_000);
  afterAll(() => server?.close({ remove: true }));

  const upload = async (name: string) => {
    const { body, contentType } = multipartBody({ name, type: 'application/pdf', bytes: Buffer.from(`${name} bytes`) });
    const response = await server.fetch('/api/files', { method: 'POST', token: seller.token, body, headers: { 'content-type': contentType } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const stored = async (key: string) => (await server.services.files.stat(key)) !== null;

  it("are removed: an unrecorded upload's once an hour old, a deleted file's at once; recorded files stay", async () => {
    const kept = await upload('kept.pdf');
    // Stored, never recorded: the process died before FileUploaded.
    const unrecorded = 'file_unrecorded0crash';
    await server.services.files.put(unrecorded, Readable.from([Buffer.from('orphan bytes')]));
    // Deleted, the bytes left: the process died after FileDeleted.
    const deleted = await upload('deleted.pdf');
    await handleCommand(server.cliContext(seller.organizationId), fileStream(deleted), fileDecider, { type: 'DeleteFile', organizationId: seller.organizationId, now: 1 });

    const storedAt = (await server.services.files.stat(unrecorded))!.storedAt;
    // An upload may still be about to record its file: left alone within the hour.
    expect(await removeUnrecordedFiles(server.services, storedAt + UNRECORDED_AFTER_MS - 1)).toBe(1);
    expect({ kept: await stored(kept), unrecorded: await stored(unrecorded), deleted: await stored(deleted) }).toEqual({ kept: true, unrecorded: true, deleted: false });
    expect(await removeUnrecordedFiles(server.services, storedAt + UNRECORDED_AFTER_MS)).toBe(1);
    expect({ kept: await stored(kept), unrecorded: await stored(unrecorded) }).toEqual({ kept: true, unrecorded: false });
    expect(await removeUnrecordedFiles(server.services, storedAt + 10 * UNRECORDED_AFTER_MS)).toBe(0);
  });
});
