/**
 * The management routes' answers, taken from the modules that give them: type-only imports,
 * erased before esbuild bundles, so no server code reaches the browser.
 */
import type { z } from 'zod';
import type { HistoryEntry as CheckoutHistoryEntry, ManagedSessionSchema, SessionView } from '../../modules/checkout/index.ts';
import type { MemberSchema } from '../../modules/identity/index.ts';

/** An item of GET /checkout/sessions. */
export type SessionItem = z.infer<typeof ManagedSessionSchema>;

/** A session's state as the history holds it after each event. */
export type SessionState = SessionView;
export type HistoryEntry = CheckoutHistoryEntry;
export type SessionDetail = SessionState & { history: HistoryEntry[] };
export type Invoice = NonNullable<SessionState['invoice']>;
export type Actor = HistoryEntry['actor'];

/** A member, or a person invited (`status: 'invited'`, id `inv_…`) who has not accepted yet. */
export type Member = z.infer<typeof MemberSchema>;
