import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { handleCommand, timeOrderedUuid, type CommandContext } from '../../platform/es/index.ts';
import type { FileStore } from '../../platform/files/index.ts';
import { fileDecider, fileDownloadsStream, fileSettingsStream, fileStream, type FileDownloadedData, type FileSettings, type FileUploadedData } from './domain/file.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `file_` and 24 characters of 62 (≈143 bits): ids are not secrets, but need not be guessable either. */
export function newFileId(): string {
  let id = 'file_';
  for (const b of randomBytes(24)) id += ALPHABET[b % ALPHABET.length];
  return id;
}

export type UploadInput = { organizationId: string; filename: string; type: string; source: Readable };

/**
 * Stores the bytes, then records FileUploaded: the event names only a file stored whole, and a
 * failure between the two leaves bytes nobody names, removed here when it can be.
 */
export async function uploadFile(ctx: CommandContext, files: FileStore, input: UploadInput, check?: (stored: { size: number }) => void): Promise<FileUploadedData> {
  const id = newFileId();
  const stored = await files.put(id, input.source);
  try {
    check?.(stored);
    const file: FileUploadedData = {
      id,
      organization_id: input.organizationId,
      filename: input.filename,
      size: stored.size,
      type: input.type,
      purpose: 'benefit',
      sha256: stored.sha256,
      created_at: ctx.metadata.occurred_at,
    };
    await handleCommand(ctx, fileStream(id), fileDecider, { type: 'RecordUpload', file }, { known: [] });
    return file;
  } catch (error) {
    await files.delete(id).catch(() => undefined);
    throw error;
  }
}

/** Records the deletion, then removes the bytes (a retry of a deletion whose removal failed removes them). */
export async function deleteFile(ctx: CommandContext, files: FileStore, organizationId: string, id: string): Promise<void> {
  await handleCommand(ctx, fileStream(id), fileDecider, { type: 'DeleteFile', organizationId, now: ctx.metadata.occurred_at });
  await files.delete(id);
}

/** One download, appended whatever the stream holds: downloads decide nothing and run at once. */
export async function recordDownload(ctx: CommandContext, data: FileDownloadedData): Promise<void> {
  await ctx.store.append(fileDownloadsStream(data.file_id), [{ id: timeOrderedUuid(), type: 'FileDownloaded', data, metadata: ctx.metadata }], 'any');
}

export async function updateFileSettings(ctx: CommandContext, organizationId: string, settings: FileSettings): Promise<void> {
  const data = { ...settings, organization_id: organizationId, updated_at: ctx.metadata.occurred_at };
  await ctx.store.append(fileSettingsStream(organizationId), [{ id: timeOrderedUuid(), type: 'FileSettingsUpdated', data, metadata: ctx.metadata }], 'any');
}
