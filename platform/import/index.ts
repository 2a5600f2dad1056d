export { applyEach, filePath, ImportValidationError } from './importIssues.ts';
export { type ImportContext, type ImportIssue, importSection, type ImportSection } from './importSection.ts';
export { runImport } from './importFile.ts';
