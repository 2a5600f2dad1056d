import { replaceTrigger, setSequenceStatus } from '../../modules/automation/automationCommands.ts';
import { currentTier, promoState } from '../../modules/promos/domain/pricing.ts';
import {
  SEQUENCES,
  TRIGGERS,
  WORKFLOWS,
  type SequenceDoc,
  type TriggerDoc,
  type WorkflowDoc,
} from '../../modules/automation/automationProjection.ts';
import { PROMOS, type PromoDoc } from '../../modules/promos/promoProjection.ts';
import type { Services } from '../../platform/runtime/services.ts';
import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { notFound } from '../../platform/domain/domainError.ts';
import { CliUsageError, listCommand, orgFilter, table, type CliCommand } from '../command.ts';

function idArg(args: string[], what: string): number {
  const raw = args[0];
  const id = Number(raw);
  if (!raw || !Number.isSafeInteger(id) || id < 1) throw new CliUsageError(`${what} needs an integer id`);
  return id;
}

/** Catch URLs are absolute for people to copy. */
export const catchUrl = (services: Services, sequenceKey: string, triggerKey: string) => `${serviceBaseUrl(services.config)}/hooks/catch/${sequenceKey}/${triggerKey}`;

export const sequenceListCommand = listCommand<Omit<SequenceDoc, 'id' | 'route_key'>>(
  'sequence',
  'List automation sequences with their status and actions.',
  async ({ services, options }) => {
    const docs = await services.readStore.find<SequenceDoc>(SEQUENCES, { filter: orgFilter(options), sort: [['sequence_id', 1]] });
    return docs.map(({ id: _id, route_key: _rk, ...d }) => d);
  },
  (rows) => table(['ID', 'ORGANIZATION', 'STATUS', 'NAME', 'ACTIONS'], rows.map((r) => [String(r.sequence_id), r.organization_id, r.status, r.name, r.actions.map((a) => a.type).join(', ')])),
);

const statusCommand = (status: 'paused' | 'active', word: 'pause' | 'resume'): CliCommand => ({
  path: ['sequence', word],
  usage: `sequence ${word} ID`,
  maxArgs: 1,
  description: word === 'pause' ? 'Pause a sequence: its catch URLs answer "skipped" and start nothing.' : 'Resume a paused sequence.',
  async run({ args, commandContext }) {
    return setSequenceStatus(commandContext(), idArg(args, `sequence ${word}`), status);
  },
  format: (r: { id: number; status: string; changed: boolean }) => `sequence ${r.id} ${r.changed ? 'is now' : 'was already'} ${r.status}`,
});
export const sequencePauseCommand = statusCommand('paused', 'pause');
export const sequenceResumeCommand = statusCommand('active', 'resume');

export const triggerListCommand = listCommand(
  'trigger',
  'List triggers: webhook triggers with their catch URLs (the URL is the secret), event triggers with their event type.',
  async ({ services, options }) => {
    const triggers = await services.readStore.find<TriggerDoc>(TRIGGERS, { filter: orgFilter(options), sort: [['trigger_id', 1]] });
    const rows = [];
    for (const t of triggers) {
      const sequence = await services.readStore.get<SequenceDoc>(SEQUENCES, String(t.sequence_id));
      if (!sequence) continue;
      rows.push({
        trigger_id: t.trigger_id,
        organization_id: t.organization_id,
        sequence_id: t.sequence_id,
        name: t.name,
        enabled: t.enabled,
        received_count: t.received_count,
        catch_url: t.trigger_type === 'event' ? null : catchUrl(services, sequence.route_key, t.route_key),
        event_type: t.event_type ?? null,
      });
    }
    return rows;
  },
  (rows) =>
    table(
      ['ID', 'SEQUENCE', 'ENABLED', 'RECEIVED', 'NAME', 'CATCH URL / EVENT'],
      rows.map((r) => [String(r.trigger_id), String(r.sequence_id), r.enabled ? 'yes' : 'no', String(r.received_count), r.name, r.catch_url ?? `on ${r.event_type}`]),
    ),
);

export const triggerReplaceCommand: CliCommand = {
  path: ['trigger', 'replace'],
  usage: 'trigger replace ID',
  maxArgs: 1,
  description: 'Rotate a trigger’s catch URL (after a leak): the old URL answers 404 from now on.',
  async run({ services, args, commandContext, catchUp }) {
    const id = idArg(args, 'trigger replace');
    const replaced = await replaceTrigger(commandContext(), id);
    await catchUp();
    const trigger = await services.readStore.get<TriggerDoc>(TRIGGERS, String(id));
    const sequence = trigger ? await services.readStore.get<SequenceDoc>(SEQUENCES, String(trigger.sequence_id)) : null;
    if (!sequence) throw notFound('Trigger');
    return { trigger_id: id, catch_url: catchUrl(services, sequence.route_key, replaced.route_key) };
  },
  format: (r: { trigger_id: number; catch_url: string }) => `trigger ${r.trigger_id} replaced; its new catch URL:\n\n  ${r.catch_url}\n`,
};

export const promoListCommand = listCommand(
  'promo',
  'List promos with their state, current tier and participant count.',
  async ({ services, options }) => {
    const now = Math.floor(services.clock() / 1000);
    const promos = await services.readStore.find<PromoDoc>(PROMOS, { filter: orgFilter(options), sort: [['slug', 1]] });
    return promos.map((p) => ({
      slug: p.slug,
      organization_id: p.organization_id,
      name: p.name,
      state: promoState(p, now),
      current_tier: currentTier(p, now)?.name ?? null,
      participants_count: p.participants_count,
      starts_at: p.starts_at,
      ends_at: p.ends_at,
    }));
  },
  (rows) => table(['SLUG', 'STATE', 'TIER', 'PARTICIPANTS', 'NAME'], rows.map((r) => [r.slug, r.state, r.current_tier ?? '-', String(r.participants_count), r.name])),
);

export const workflowShowCommand: CliCommand = {
  path: ['workflow', 'show'],
  usage: 'workflow show ID',
  maxArgs: 1,
  description: 'Show a workflow run: status and each step’s result.',
  async run({ services, args, catchUp }) {
    const id = idArg(args, 'workflow show');
    await catchUp();
    const doc = await services.readStore.get<WorkflowDoc>(WORKFLOWS, String(id));
    if (!doc) throw notFound('Workflow');
    const { id: _id, ...workflow } = doc;
    return workflow;
  },
  format: (w: Omit<WorkflowDoc, 'id'>) =>
    [
      `workflow ${w.workflow_id} (trigger ${w.trigger_id}, sequence ${w.sequence_id}): ${w.status}`,
      // The whole result: a body cut at a fixed length could end mid-escape and read as another value.
      ...w.steps.flatMap((s) => [
        `  step ${s.step} ${s.action}: ${s.status}${s.attempts > 1 ? ` after ${s.attempts} attempts` : ''}`,
        ...(s.result ? JSON.stringify(s.result, null, 2).split('\n').map((line) => `    ${line}`) : []),
      ]),
      ...(w.steps.length < w.step_count ? [`  ${w.step_count - w.steps.length} step(s) not run`] : []),
    ].join('\n'),
};
