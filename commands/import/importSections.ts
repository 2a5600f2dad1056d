import { promosSection, sequencesSection } from '../automation/automationImport.ts';
import { familiesSection, productsSection } from '../catalog/catalogImport.ts';
import { offersSection } from '../checkout/offerImport.ts';
import type { ImportSection } from './importSection.ts';

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
