import { fold, notFound } from '../../platform/domain/index.ts';
import { handleCommand, timeOrderedUuid, type CommandContext } from '../../platform/es/index.ts';
import { WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { loadProductByRef } from '../catalog/index.ts';
import { benefitClaimStream, productBenefitsStream, type BenefitData, type BenefitProperties, type BenefitRegisteredEvent, type ProductBenefitsEvent } from './domain/benefitTypes.ts';
import { productBenefitsDecider, type BenefitState, type ProductBenefitsState } from './domain/productBenefits.ts';
import { newBenefitId } from './grantIds.ts';

export async function loadProductBenefits(ctx: Pick<CommandContext, 'store'>, productId: string): Promise<ProductBenefitsState> {
  return fold(productBenefitsDecider, (await ctx.store.readStream(productBenefitsStream(productId))) as unknown as ProductBenefitsEvent[]);
}

/** The product (route key) a benefit id belongs to in this organization, from its claim; null for another's or an unknown id. */
export async function productOfBenefit(ctx: Pick<CommandContext, 'store'>, organizationId: string, benefitId: string): Promise<string | null> {
  const first = await ctx.store.readEvent(benefitClaimStream(benefitId), 0);
  const data = first?.data as BenefitRegisteredEvent['data'] | undefined;
  return data && data.organization_id === organizationId ? data.product_id : null;
}

/** The benefit as its product's stream says (deleted ones included); null for another organization's or an unknown id. */
export async function loadBenefit(ctx: Pick<CommandContext, 'store'>, organizationId: string, benefitId: string): Promise<BenefitState | null> {
  const productId = await productOfBenefit(ctx, organizationId, benefitId);
  if (productId === null) return null;
  return (await loadProductBenefits(ctx, productId)).benefits[benefitId] ?? null;
}

export type CreateBenefitInput = {
  organizationId: string;
  /** The product's id (route key) or UUID. */
  product: string;
  type: BenefitData['type'];
  description: string;
  properties: BenefitProperties;
  /** For an import run again: the id to create under (a fresh one when absent). */
  id?: string;
};

/**
 * Claims a fresh id for the product (`benefit-<id>`, so a management route finds the product from
 * the id alone), then creates the benefit on the product's stream. A crash in between leaves a
 * claim whose benefit does not exist: the id answers as unknown.
 */
export async function createBenefit(ctx: CommandContext, input: CreateBenefitInput): Promise<{ benefit: BenefitState; position: number | null }> {
  const product = await loadProductByRef(ctx, input.organizationId, input.product);
  if (!product) throw notFound('Product');
  const id = input.id ?? newBenefitId();
  try {
    await ctx.store.append(
      benefitClaimStream(id),
      [{ id: timeOrderedUuid(), type: 'BenefitRegistered', data: { organization_id: input.organizationId, product_id: product.routeKey }, metadata: ctx.metadata }],
      'no_stream',
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    // Claimed already: by this very creation run again, or by another product's benefit.
    if ((await productOfBenefit(ctx, input.organizationId, id)) !== product.routeKey) throw notFound('Benefit');
  }
  const result = await handleCommand(ctx, productBenefitsStream(product.routeKey), productBenefitsDecider, {
    type: 'CreateBenefit',
    benefit: {
      id,
      organization_id: input.organizationId,
      product_id: product.routeKey,
      type: input.type,
      description: input.description,
      properties: input.properties,
      created_at: ctx.metadata.occurred_at,
    },
  });
  return { benefit: result.state.benefits[id]!, position: result.position };
}

export async function updateBenefit(
  ctx: CommandContext,
  organizationId: string,
  benefitId: string,
  input: { description?: string | undefined; properties?: BenefitProperties | undefined },
): Promise<{ benefit: BenefitState; position: number | null }> {
  const productId = await productOfBenefit(ctx, organizationId, benefitId);
  if (productId === null) throw notFound('Benefit');
  const result = await handleCommand(ctx, productBenefitsStream(productId), productBenefitsDecider, {
    type: 'UpdateBenefit',
    id: benefitId,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.properties !== undefined ? { properties: input.properties } : {}),
    now: ctx.metadata.occurred_at,
  });
  return { benefit: result.state.benefits[benefitId]!, position: result.position };
}

/** Deletes the benefit; the grant subscriber then revokes its grants (cause benefit.deleted). */
export async function deleteBenefit(ctx: CommandContext, organizationId: string, benefitId: string): Promise<{ position: number | null }> {
  const productId = await productOfBenefit(ctx, organizationId, benefitId);
  if (productId === null) throw notFound('Benefit');
  const result = await handleCommand(ctx, productBenefitsStream(productId), productBenefitsDecider, { type: 'DeleteBenefit', id: benefitId, now: ctx.metadata.occurred_at });
  return { position: result.position };
}
