/** The ESM build: `import { createSdk } from '<service>/sdk.mjs'` and pass the service's base URL. */
export { createSdk } from './createSdk.ts';
export type { Sdk, PresentOptions, GateCheck, GateOutcome } from './createSdk.ts';
export type { FlowHandle, FlowResult } from './flowHandle.ts';
export type { PromoHandle, PromoState, PromoChange, PromoTier } from './promoHandle.ts';
export { PROMO_POLL_MS, formatCountdown } from './promoHandle.ts';
export type { FlowError, FlowEvent, SessionView, Frame, Size, Mode } from './protocol.ts';
