import { type Decider, type DomainEvent, invalid } from '../../../platform/domain/index.ts';
import { DEFAULT_DUNNING, type DunningSettings } from './subscription.ts';

/** An organization's dunning rules: one stream per organization, `subscription_settings-<organization>`. */
export type DunningSettingsEvent = DomainEvent<'DunningSettingsChanged', DunningSettings & { changed_at: number }>;
export type DunningSettingsCommand = { type: 'ChangeDunningSettings'; settings: DunningSettings; now: number };

export const dunningSettingsStream = (organizationId: string) => `subscription_settings-${organizationId}`;

/** Retries on days 1–60 after the first failure, strictly increasing, at most eight (Stripe's ceiling). */
export function checkDunningSettings(settings: DunningSettings): void {
  const days = settings.retry_days;
  if (days.length > 8) throw invalid('invalid_retry_days', 'At most eight retries.', 'retry_days');
  days.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 1 || d > 60) throw invalid('invalid_retry_days', 'Each retry is a whole number of days from 1 to 60 after the first failure.', 'retry_days');
    if (i > 0 && d <= days[i - 1]!) throw invalid('invalid_retry_days', 'Retry days must increase.', 'retry_days');
  });
  if (!Number.isInteger(settings.grace_days) || settings.grace_days < 0 || settings.grace_days > 60) {
    throw invalid('invalid_grace_days', 'The grace is a whole number of days from 0 to 60.', 'grace_days');
  }
}

export const dunningSettingsDecider: Decider<DunningSettings, DunningSettingsCommand, DunningSettingsEvent> = {
  initialState: () => DEFAULT_DUNNING,
  evolve: (_state, event) => ({ retry_days: event.data.retry_days, final_action: event.data.final_action, grace_days: event.data.grace_days }),
  decide(command) {
    checkDunningSettings(command.settings);
    return { type: 'DunningSettingsChanged', data: { ...command.settings, changed_at: command.now } };
  },
};
