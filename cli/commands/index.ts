import type { CliCommand } from '../command.ts';
import { importCommand, productArchiveCommand, productPublishCommand } from './catalog.ts';
import { demoCommand } from './demo.ts';
import { apiKeyCreateCommand, apiKeyRevokeCommand, orgCreateCommand, userCreateCommand } from './identity.ts';
import { projectionsRebuildCommand } from './projections.ts';
import { serveCommand } from './serve.ts';

/** Every `commerce` command; `commerce help` lists them in this order. */
export const allCommands: CliCommand[] = [
  serveCommand,
  demoCommand,
  orgCreateCommand,
  userCreateCommand,
  apiKeyCreateCommand,
  apiKeyRevokeCommand,
  importCommand,
  productPublishCommand,
  productArchiveCommand,
  projectionsRebuildCommand,
];
