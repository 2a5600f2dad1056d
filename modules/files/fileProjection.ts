import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { FileDownloadEvent, FileEvent, FileSettingsEvent, FileUploadedData } from './domain/file.ts';

export const FILES = 'files';
export const FILE_DOWNLOADS = 'file_downloads';
export const FILE_SETTINGS = 'file_settings';

export type FileDoc = FileUploadedData & { deleted: boolean; deleted_at: number | null };

/** One buyer's downloads of one file: id `<file id>:<customer id>`. */
export type FileDownloadDoc = {
  id: string;
  organization_id: string;
  file_id: string;
  customer_id: string;
  count: number;
  first_downloaded_at: number;
  last_downloaded_at: number;
  /** The address of the last download, when the seller records addresses (else null). */
  last_ip: string | null;
};

export type FileSettingsDoc = { id: string; organization_id: string; record_download_ip: boolean; updated_at: number };

export const fileDownloadDocId = (fileId: string, customerId: string) => `${fileId}:${customerId}`;

type Event = FileEvent | FileDownloadEvent | FileSettingsEvent;

async function apply(event: Event, tx: ProjectionTx): Promise<void> {
  switch (event.type) {
    case 'FileUploaded':
      tx.upsert(FILES, { ...event.data, deleted: false, deleted_at: null } satisfies FileDoc);
      return;
    case 'FileDeleted': {
      const doc = await tx.get<FileDoc>(FILES, event.data.id);
      if (doc) tx.upsert(FILES, { ...doc, deleted: true, deleted_at: event.data.deleted_at });
      return;
    }
    case 'FileDownloaded': {
      const d = event.data;
      const id = fileDownloadDocId(d.file_id, d.customer_id);
      const doc = await tx.get<FileDownloadDoc>(FILE_DOWNLOADS, id);
      tx.upsert(FILE_DOWNLOADS, {
        id,
        organization_id: d.organization_id,
        file_id: d.file_id,
        customer_id: d.customer_id,
        count: (doc?.count ?? 0) + 1,
        first_downloaded_at: doc?.first_downloaded_at ?? d.downloaded_at,
        last_downloaded_at: Math.max(doc?.last_downloaded_at ?? 0, d.downloaded_at),
        last_ip: d.ip,
      } satisfies FileDownloadDoc);
      return;
    }
    case 'FileSettingsUpdated': {
      const d = event.data;
      tx.upsert(FILE_SETTINGS, { id: d.organization_id, organization_id: d.organization_id, record_download_ip: d.record_download_ip, updated_at: d.updated_at } satisfies FileSettingsDoc);
      return;
    }
  }
}

/** Files, who downloaded each (count, last time), and each organization's download settings. */
export const fileProjection: Projection = {
  name: 'files',
  collections: [FILES, FILE_DOWNLOADS, FILE_SETTINGS],
  indexes: [
    { collection: FILES, fields: ['organization_id', 'deleted', 'created_at'] },
    { collection: FILE_DOWNLOADS, fields: ['file_id', 'last_downloaded_at'] },
  ],
  eventTypes: ['FileUploaded', 'FileDeleted', 'FileDownloaded', 'FileSettingsUpdated'],
  apply: (recorded: RecordedEvent, tx) => apply(recorded as unknown as Event, tx),
};
