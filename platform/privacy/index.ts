export { cachedVault, personalSubject, type KeyLookup, type PersonalDataVault, type VaultKey } from './personalDataVault.ts';
export { SealedDataError, isSealed, redactedEmailOf, type PersonalFieldTable, type PersonFields } from './sealing.ts';
export { sealPersonalData } from './sealedEventStore.ts';
