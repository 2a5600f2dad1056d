import { fold } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { dunningSettingsDecider, dunningSettingsStream } from './domain/dunningSettings.ts';
import type { DunningSettings } from './domain/subscription.ts';

export async function loadDunningSettings(store: Pick<EventStore, 'readStream'>, organizationId: string): Promise<DunningSettings> {
  return fold(dunningSettingsDecider, (await store.readStream(dunningSettingsStream(organizationId))) as never);
}

export async function changeDunningSettings(ctx: CommandContext, organizationId: string, settings: DunningSettings): Promise<DunningSettings> {
  const result = await handleCommand(ctx, dunningSettingsStream(organizationId), dunningSettingsDecider, {
    type: 'ChangeDunningSettings',
    settings,
    now: ctx.metadata.occurred_at,
  });
  return result.state;
}
