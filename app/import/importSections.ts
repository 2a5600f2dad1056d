import type { ImportSection } from '../../platform/import/importSection.ts';
import { modules } from '../modules.ts';

/**
 * The sections `commerce import` understands, applied in this order (a section may refer to those
 * before it). A module adds its own in its module.ts.
 */
export const importSections: readonly ImportSection[] = modules.flatMap((m) => m.importSections);
