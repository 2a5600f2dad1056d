export { assertFileKey, FileNotFoundError, type ByteRange, type FileStore, type StoredFile } from './fileStore.ts';
