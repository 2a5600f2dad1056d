import { z } from 'zod';

const Unix = z.number().int().describe('Unix seconds.');

export const FileId = z.string().regex(/^file_[A-Za-z0-9]{1,40}$/, 'must be a file id (file_…)');
export const FileIdParams = z.object({ file: FileId });

/** Stripe's File, with the SHA-256 of its bytes (also its download ETag). */
export const FileSchema = z.object({
  id: z.string(),
  object: z.literal('file'),
  filename: z.string(),
  size: z.number().int().describe('Bytes.'),
  type: z.string().describe('The MIME type given at upload.'),
  purpose: z.literal('benefit'),
  sha256: z.string().describe('Hex SHA-256 of the bytes.'),
  created: Unix,
});
export type FileObject = z.infer<typeof FileSchema>;

export const DeletedFileSchema = z.object({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) });

/** One buyer's downloads of a file. */
export const FileDownloadSchema = z.object({
  object: z.literal('file_download'),
  file_id: z.string(),
  customer_id: z.string(),
  count: z.number().int(),
  first_downloaded_at: Unix,
  last_downloaded_at: Unix,
  last_ip: z.string().nullable().describe('Only when the organization records download addresses (file settings).'),
});
export type FileDownloadObject = z.infer<typeof FileDownloadSchema>;

export const FileSettingsSchema = z.object({
  object: z.literal('file_settings'),
  record_download_ip: z.boolean().describe("Whether each download keeps the buyer's IP address (off unless turned on)."),
});
export const FileSettingsBody = z.object({ record_download_ip: z.boolean() }).strict();
