import { fold } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { portalSettingsDecider, portalSettingsStream, type PortalSettings } from './domain/portalSettings.ts';

export async function loadPortalSettings(store: Pick<EventStore, 'readStream'>, organizationId: string): Promise<PortalSettings> {
  return fold(portalSettingsDecider, (await store.readStream(portalSettingsStream(organizationId))) as never);
}

export async function changePortalSettings(ctx: CommandContext, organizationId: string, settings: PortalSettings): Promise<PortalSettings> {
  const result = await handleCommand(ctx, portalSettingsStream(organizationId), portalSettingsDecider, { type: 'ChangePortalSettings', settings, now: ctx.metadata.occurred_at });
  return result.state;
}
