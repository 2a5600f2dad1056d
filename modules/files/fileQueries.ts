import type { ReadStore } from '../../platform/readStore/index.ts';
import { DEFAULT_FILE_SETTINGS, type FileSettings } from './domain/file.ts';
import { FILE_DOWNLOADS, FILE_SETTINGS, FILES, type FileDoc, type FileDownloadDoc, type FileSettingsDoc } from './fileProjection.ts';
import type { FileDownloadObject, FileObject } from './http/fileSchemas.ts';

export function presentFile(doc: FileDoc): FileObject {
  return { id: doc.id, object: 'file', filename: doc.filename, size: doc.size, type: doc.type, purpose: doc.purpose, sha256: doc.sha256, created: doc.created_at };
}

export function presentDownload(doc: FileDownloadDoc): FileDownloadObject {
  return {
    object: 'file_download',
    file_id: doc.file_id,
    customer_id: doc.customer_id,
    count: doc.count,
    first_downloaded_at: doc.first_downloaded_at,
    last_downloaded_at: doc.last_downloaded_at,
    last_ip: doc.last_ip,
  };
}

/** The organization's file (deleted ones too: the caller decides); another's or none: null. */
export async function findFile(readStore: ReadStore, organizationId: string, id: string): Promise<FileDoc | null> {
  const doc = await readStore.get<FileDoc>(FILES, id);
  return doc && doc.organization_id === organizationId ? doc : null;
}

/** The organization's files among `ids`, in the order given (deleted, unknown and others' left out). */
export async function filesByIds(readStore: ReadStore, organizationId: string, ids: string[]): Promise<FileObject[]> {
  if (ids.length === 0) return [];
  const docs = await readStore.find<FileDoc>(FILES, { filter: { id: { $in: [...new Set(ids)] }, organization_id: organizationId, deleted: false } });
  const byId = new Map(docs.map((d) => [d.id, d]));
  return ids.flatMap((id) => {
    const doc = byId.get(id);
    return doc ? [presentFile(doc)] : [];
  });
}

export async function listFiles(readStore: ReadStore, organizationId: string, page: { skip: number; limit: number }) {
  const filter = { organization_id: organizationId, deleted: false };
  const [items, total] = await Promise.all([
    readStore.find<FileDoc>(FILES, { filter, sort: [['created_at', -1]], skip: page.skip, limit: page.limit }),
    readStore.count(FILES, filter),
  ]);
  return { items, total };
}

export async function listDownloads(readStore: ReadStore, fileId: string, page: { skip: number; limit: number }) {
  const filter = { file_id: fileId };
  const [items, total] = await Promise.all([
    readStore.find<FileDownloadDoc>(FILE_DOWNLOADS, { filter, sort: [['last_downloaded_at', -1]], skip: page.skip, limit: page.limit }),
    readStore.count(FILE_DOWNLOADS, filter),
  ]);
  return { items, total };
}

export async function fileSettings(readStore: ReadStore, organizationId: string): Promise<FileSettings> {
  const doc = await readStore.get<FileSettingsDoc>(FILE_SETTINGS, organizationId);
  return doc ? { record_download_ip: doc.record_download_ip } : DEFAULT_FILE_SETTINGS;
}
