import { runImport as runSections, validateImport as validateSections, type ImportResult } from '../../platform/import/importFile.ts';
import type { ImportContext, ImportSection } from '../../platform/import/importSection.ts';
import { importSections } from './importSections.ts';

export { ImportValidationError, parseImportJson, type ImportResult } from '../../platform/import/importFile.ts';

/** Validates a file against every module's import sections (or the ones given). */
export function validateImport(input: unknown, sections: readonly ImportSection[] = importSections): Record<string, unknown> {
  return validateSections(input, sections);
}

/** Imports a file through every module's import sections (or the ones given), all or nothing. */
export function runImport(ctx: ImportContext, input: unknown, sections: readonly ImportSection[] = importSections): Promise<ImportResult> {
  return runSections(ctx, input, sections);
}
