import type { z } from 'zod';
import type { CommandContext } from '../es/handleCommand.ts';
import type { ImportIssue } from './importIssues.ts';

export type { ImportIssue };

export type ImportContext = {
  /**
   * While sections apply, its store stages appends (platform/es/stagedAppends.ts): commands decide
   * on the streams as they are plus what earlier items staged, and nothing is written until every
   * section has applied without a refusal. Decide on streams, never on read models: they show
   * none of what the file stages.
   */
  command: CommandContext;
  organizationId: string;
  /** Brings the read models up to the log's head (what is written, not what is staged). */
  catchUp(): Promise<void>;
  /** Seals Send Webhook signing secrets (sendWebhookSecretBox); without it a file giving one is refused. */
  sendWebhookSecrets?: { seal(plain: string): string; open(sealed: string): string };
};

/**
 * A top-level key of the import file. `schema` validates the section alone; `check` sees the whole
 * validated file for references between sections (a product's family, an offer's product).
 * Every section of a file is validated before any is applied, in registry order. `apply` throws
 * ImportValidationError for refusals (see applyEach); any item refused and nothing is written.
 */
export type ImportSection<T = unknown, R = unknown> = {
  name: string;
  schema: z.ZodType<T>;
  check?(value: T, file: Readonly<Record<string, unknown>>): ImportIssue[];
  /**
   * Runs once per import before anything is staged, on the store itself: a one-time migration
   * the section's decisions rely on (automation key claims for sequences made before them).
   */
  prepare?(command: CommandContext): Promise<void>;
  apply(ctx: ImportContext, value: T, file: Readonly<Record<string, unknown>>): Promise<R>;
  /** One line per applied item, for people. */
  describe?(result: R): string[];
};

/** Keeps a section's value type while it sits in the registry's list. */
export const importSection = <T, R>(section: ImportSection<T, R>): ImportSection<T, R> => section;
