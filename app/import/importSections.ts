import { promosSection, sequencesSection } from '../../commands/automation/automationImport.ts';
import { familiesSection, productsSection } from '../../commands/catalog/catalogImport.ts';
import { offersSection } from '../../commands/checkout/offerImport.ts';
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
