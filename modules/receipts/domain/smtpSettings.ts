import { type Decider, type DomainEvent, notFound } from '../../../platform/domain/index.ts';

/**
 * An organization's own SMTP server for its buyer emails. The log records what was set and when
 * (never the password): the password is sealed in a record outside the log, named by
 * `credentials_id`, as the Stripe keys are.
 */
export type SmtpServer = { host: string; port: number; username: string | null; from: string };

export type SmtpSettingsEvent =
  | DomainEvent<'SmtpSettingsChanged', SmtpServer & { credentials_id: string; changed_at: number }>
  | DomainEvent<'SmtpSettingsRemoved', { removed_at: number }>;

export type SmtpSettingsCommand =
  | { type: 'SetSmtpSettings'; server: SmtpServer; credentialsId: string; now: number }
  | { type: 'RemoveSmtpSettings'; now: number };

export type SmtpSettingsState = { status: 'none' } | { status: 'set'; server: SmtpServer; credentials_id: string };

export const smtpSettingsStream = (organizationId: string) => `smtp_settings-${organizationId}`;

export const smtpSettingsDecider: Decider<SmtpSettingsState, SmtpSettingsCommand, SmtpSettingsEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(_state, event) {
    switch (event.type) {
      case 'SmtpSettingsChanged': {
        const { host, port, username, from, credentials_id } = event.data;
        return { status: 'set', server: { host, port, username, from }, credentials_id };
      }
      case 'SmtpSettingsRemoved':
        return { status: 'none' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'SetSmtpSettings':
        return { type: 'SmtpSettingsChanged', data: { ...command.server, credentials_id: command.credentialsId, changed_at: command.now } };
      case 'RemoveSmtpSettings':
        if (state.status === 'none') throw notFound('SMTP settings');
        return { type: 'SmtpSettingsRemoved', data: { removed_at: command.now } };
    }
  },
};
