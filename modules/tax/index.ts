export { calculateTax, isCountryCode, rateTableCalculator, resolveCustomerTaxDetails, type TaxCalculator, taxIdVerifierFor, type TaxSettingsSummary, taxSettingsFor } from './taxCalculation.ts';
export { createTaxRate, loadStarterRates, loadTax, updateTaxRate, updateTaxSettings } from './taxCommands.ts';
export { formatOnlyVerifier, type TaxIdVerification, type TaxIdVerifier, viesVerifier } from './taxIdVerifier.ts';
export { EU_STANDARD_RATES, EU_STANDARD_RATES_AS_OF, isEuCountry } from './domain/euVatRates.ts';
export { parseTaxId } from './domain/taxIds.ts';
export { type TaxRate, type TaxSettings, taxStream } from './domain/taxLedger.ts';
// Answers of the management routes, whose inferred types the dashboard imports (type-only).
export { TaxRateSchema, TaxSettingsSchema } from './http/taxSchemas.ts';
