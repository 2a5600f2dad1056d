import type { CliCommand } from '../command.ts';
import {
  promoListCommand,
  sequenceListCommand,
  sequencePauseCommand,
  sequenceResumeCommand,
  triggerListCommand,
  triggerReplaceCommand,
  workflowShowCommand,
} from './automation.ts';
import { importCommand, productArchiveCommand, productPublishCommand } from './catalog.ts';
import { offerArchiveCommand, offerPublishCommand, replaySessionCommand } from './checkout.ts';
import { demoCommand } from './demo.ts';
import { apiKeyListCommand, offerListCommand, orgListCommand, productListCommand, sessionListCommand, workflowListCommand } from './lists.ts';
import { apiKeyCreateCommand, apiKeyRevokeCommand, orgCreateCommand, orgUpdateCommand, userCreateCommand } from './identity.ts';
import { oauthAppCommands } from './oauthApps.ts';
import { projectionsRebuildCommand } from './projections.ts';
import { backupCommand } from './backup.ts';
import { eventsCopyCommand } from './events.ts';
import { outboxListCommand, outboxShowCommand } from './outbox.ts';
import { serveCommand } from './serve.ts';
import { userResetPasswordCommand } from './userAccess.ts';
import { workerAutomationCommand, workerProjectionsCommand } from './worker.ts';
import { webhookCommands } from './webhooks.ts';
import { paymentCommands } from './payments.ts';
import { testClockCommands } from './testClocks.ts';
import { exportCommands } from './exports.ts';
import { customersBackfillCommand } from './customers.ts';
import { couponCommands } from './coupons.ts';
import { benefitCommands } from './benefits.ts';
import { taxCommands } from './tax.ts';

/** Every `commerce` command; `commerce help` lists them in this order. */
export const allCommands: CliCommand[] = [
  serveCommand,
  demoCommand,
  orgCreateCommand,
  orgUpdateCommand,
  orgListCommand,
  userCreateCommand,
  userResetPasswordCommand,
  apiKeyCreateCommand,
  apiKeyListCommand,
  apiKeyRevokeCommand,
  ...oauthAppCommands,
  importCommand,
  productListCommand,
  productPublishCommand,
  productArchiveCommand,
  offerListCommand,
  offerPublishCommand,
  offerArchiveCommand,
  sessionListCommand,
  replaySessionCommand,
  sequenceListCommand,
  sequencePauseCommand,
  sequenceResumeCommand,
  triggerListCommand,
  triggerReplaceCommand,
  promoListCommand,
  ...couponCommands,
  ...benefitCommands,
  workflowListCommand,
  workflowShowCommand,
  ...taxCommands,
  ...webhookCommands,
  ...paymentCommands,
  ...testClockCommands,
  outboxListCommand,
  outboxShowCommand,
  ...exportCommands,
  projectionsRebuildCommand,
  workerProjectionsCommand,
  workerAutomationCommand,
  eventsCopyCommand,
  backupCommand,
  customersBackfillCommand,
];
