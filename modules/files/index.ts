// Benefits, buyer pages and the dashboard read files through these.
export { downloadUrl, DOWNLOAD_LINK_TTL_SECONDS, type DownloadLinkInput } from './downloadLinks.ts';
export { filesByIds } from './fileQueries.ts';
export { FileDownloadSchema, FileSchema, FileSettingsSchema, type FileDownloadObject, type FileObject } from './http/fileSchemas.ts';
export { fileStream, type FileEvent } from './domain/file.ts';
