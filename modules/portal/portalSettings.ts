import { fold } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { invalid } from '../../platform/domain/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { loadProductByRef } from '../catalog/index.ts';
import { portalSettingsDecider, portalSettingsStream, type PortalSettings } from './domain/portalSettings.ts';

export async function loadPortalSettings(store: Pick<EventStore, 'readStream'>, organizationId: string): Promise<PortalSettings> {
  return fold(portalSettingsDecider, (await store.readStream(portalSettingsStream(organizationId))) as never);
}

/** Sets the portal settings; the products named for plan switches must be the organization's (kept by route key, each once). */
export async function changePortalSettings(ctx: CommandContext, organizationId: string, input: PortalSettings): Promise<PortalSettings> {
  const products: string[] = [];
  for (const ref of input.subscription_update_products) {
    const product = await loadProductByRef(ctx, organizationId, ref);
    if (!product) throw invalid('product_not_found', `No product ${ref} in this organization.`, 'subscription_update_products');
    if (!products.includes(product.routeKey)) products.push(product.routeKey);
  }
  const settings = { ...input, subscription_update_products: products };
  const result = await handleCommand(ctx, portalSettingsStream(organizationId), portalSettingsDecider, { type: 'ChangePortalSettings', settings, now: ctx.metadata.occurred_at });
  return result.state;
}
