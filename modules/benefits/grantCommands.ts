import { fold } from '../../platform/domain/index.ts';
import { handleCommand, timeOrderedUuid, type CommandContext } from '../../platform/es/index.ts';
import { loadProductByRef } from '../catalog/index.ts';
import { loadProductBenefits } from './benefitCommands.ts';
import { benefitGrantDecider, type BenefitGrantState } from './domain/benefitGrant.ts';
import {
  benefitGrantLedgerStream,
  benefitGrantStream,
  type BenefitGrantEvent,
  type BenefitGrantRecordedEvent,
  type GrantCause,
  type GrantSource,
  type RevokeCause,
} from './domain/benefitTypes.ts';
import type { BenefitState } from './domain/productBenefits.ts';
import { grantIdFor } from './grantIds.ts';

/**
 * The benefits of the product a plan names (its route key or UUID), deleted ones included;
 * none when the organization has no such product.
 */
export async function benefitsOfPlanProduct(ctx: Pick<CommandContext, 'store'>, organizationId: string, productRef: string): Promise<BenefitState[]> {
  const product = await loadProductByRef(ctx, organizationId, productRef);
  if (!product) return [];
  return Object.values((await loadProductBenefits(ctx, product.routeKey)).benefits);
}

export type GrantInput = {
  organizationId: string;
  mode: 'test' | 'live';
  customerId: string;
  source: GrantSource;
  cause: GrantCause;
  invoiceId: string | null;
  now: number;
  /** Whether a revoked grant is granted again (a subscription entitled again). */
  regrant: boolean;
};

/**
 * Grants the benefit unless granted. A new grant's id goes on the benefit's ledger first, so the
 * benefit's deletion finds every grant from the log (a crash in between leaves an id on the
 * ledger with no grant: revoking it decides nothing).
 */
export async function grantBenefit(ctx: CommandContext, benefit: BenefitState, input: GrantInput): Promise<string> {
  const grantId = grantIdFor(benefit.id, input.source);
  const stream = benefitGrantStream(grantId);
  const known = await ctx.store.readStream(stream);
  if (known.length === 0) {
    const recorded: BenefitGrantRecordedEvent = { type: 'BenefitGrantRecorded', data: { grant_id: grantId } };
    await ctx.store.append(benefitGrantLedgerStream(benefit.id), [{ id: timeOrderedUuid(), ...recorded, metadata: ctx.metadata }], 'any');
  }
  await handleCommand(
    ctx,
    stream,
    benefitGrantDecider,
    {
      type: 'Grant',
      regrant: input.regrant,
      grant: {
        grant_id: grantId,
        organization_id: input.organizationId,
        mode: input.mode,
        benefit_id: benefit.id,
        benefit_type: benefit.type,
        product_id: benefit.product_id,
        customer_id: input.customerId,
        source: input.source,
        cause: input.cause,
        invoice_id: input.invoiceId,
        granted_at: input.now,
      },
    },
    { known },
  );
  return grantId;
}

export async function loadGrant(ctx: Pick<CommandContext, 'store'>, grantId: string): Promise<BenefitGrantState> {
  return fold(benefitGrantDecider, (await ctx.store.readStream(benefitGrantStream(grantId))) as unknown as BenefitGrantEvent[]);
}

/** Revokes the grant if it is in force; nothing for one revoked or never made. */
export async function revokeGrant(ctx: CommandContext, grantId: string, cause: RevokeCause, now: number): Promise<void> {
  await handleCommand(ctx, benefitGrantStream(grantId), benefitGrantDecider, { type: 'Revoke', cause, now });
}

/** The grant ids a benefit's ledger holds, each once. */
export async function grantIdsOfBenefit(ctx: Pick<CommandContext, 'store'>, benefitId: string): Promise<string[]> {
  const events = await ctx.store.readStream(benefitGrantLedgerStream(benefitId));
  return [...new Set(events.map((e) => (e.data as BenefitGrantRecordedEvent['data']).grant_id))];
}
