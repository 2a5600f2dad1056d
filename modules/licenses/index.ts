// The buyer's pages (thank-you page, receipt, portal) and the dashboard use these.
export { licenseKeysForGrants } from './licenseKeyQueries.ts';
export { ActivationSchema, LicenseKeySchema, LicenseKeyViewSchema, LicenseStatusSchema } from './http/licenseSchemas.ts';
export type { LicenseKey, LicenseKeyView } from './http/licenseSchemas.ts';
export { licenseKeyIdFor, normalizeLicenseKey } from './licenseKeyCodec.ts';
export { licenseKeyStream, type LicenseKeyEvent, type LicenseStatus } from './domain/licenseKey.ts';
