import { promosSection, sequencesSection } from '../../commands/automation/automationImport.ts';
import { familiesSection, productsSection } from '../../modules/catalog/catalogImport.ts';
import { offersSection } from '../../modules/checkout/offerImport.ts';
import type { ImportSection } from '../../platform/import/importSection.ts';

/**
 * The sections `commerce import` understands, applied in this order (a section may refer to those
 * before it). Add yours with one line.
 */
export const importSections: readonly ImportSection[] = [
  familiesSection as ImportSection,
  productsSection as ImportSection,
  offersSection as ImportSection,
  promosSection as ImportSection,
  sequencesSection as ImportSection,
];
