import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { DomainError, notFound } from '../../../platform/domain/index.ts';

/**
 * A file a seller uploaded (Stripe's File, with its SHA-256), delivered by file benefits. Its
 * bytes are in the file store under its id; its stream `file-<id>` says it exists: FileUploaded
 * is appended only once the bytes are stored whole, so a file without the event is never served.
 */

export type FilePurpose = 'benefit';

export type FileUploadedData = {
  id: string;
  organization_id: string;
  filename: string;
  size: number;
  /** The MIME type the upload declared (application/octet-stream when none). */
  type: string;
  purpose: FilePurpose;
  sha256: string;
  created_at: number;
};

export type FileEvent = DomainEvent<'FileUploaded', FileUploadedData> | DomainEvent<'FileDeleted', { id: string; deleted_at: number }>;

export type FileState = { status: 'none' } | { status: 'uploaded' | 'deleted'; file: FileUploadedData };

export type FileCommand = { type: 'RecordUpload'; file: FileUploadedData } | { type: 'DeleteFile'; organizationId: string; now: number };

export const fileStream = (id: string) => `file-${id}`;

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'FileUploaded':
        return { status: 'uploaded', file: event.data };
      case 'FileDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordUpload':
        if (state.status !== 'none') throw new DomainError('conflict', 'file_exists', 'This file was recorded already.');
        return { type: 'FileUploaded', data: command.file };
      case 'DeleteFile':
        if (state.status === 'none' || state.file.organization_id !== command.organizationId) throw notFound('File');
        if (state.status === 'deleted') return [];
        return { type: 'FileDeleted', data: { id: state.file.id, deleted_at: command.now } };
    }
  },
};

/**
 * One download of a file by a buyer, on `file_downloads-<file id>` with any revision (downloads decide
 * nothing); `ip` only when the seller records it.
 */
export type FileDownloadedData = { file_id: string; organization_id: string; customer_id: string; downloaded_at: number; ip: string | null };
export type FileDownloadEvent = DomainEvent<'FileDownloaded', FileDownloadedData>;
export const fileDownloadsStream = (fileId: string) => `file_downloads-${fileId}`;

/** The seller's choices about downloads, on `file_settings-<organization id>`. */
export type FileSettings = { record_download_ip: boolean };
export type FileSettingsEvent = DomainEvent<'FileSettingsUpdated', FileSettings & { organization_id: string; updated_at: number }>;
export const fileSettingsStream = (organizationId: string) => `file_settings-${organizationId}`;
export const DEFAULT_FILE_SETTINGS: FileSettings = { record_download_ip: false };
