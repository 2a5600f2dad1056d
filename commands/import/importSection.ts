import type { z } from 'zod';
import type { CommandContext } from '../handleCommand.ts';
import type { ReadStore } from '../../projections/readStore.ts';

/** One problem with an import file: where (a dotted path from the file's root) and what. */
export type ImportIssue = { path: string; message: string };

export type ImportContext = {
  command: CommandContext;
  organizationId: string;
  readStore: ReadStore;
  /** Brings the read models up to the log's head: a section that reads what an earlier one wrote calls it first. */
  catchUp(): Promise<void>;
};

/**
 * A top-level key of the import file. `schema` validates the section alone; `check` sees the whole
 * validated file for references between sections (a product's family, an offer's product).
 * Every section of a file is validated before any is applied, in registry order.
 */
export type ImportSection<T = unknown, R = unknown> = {
  name: string;
  schema: z.ZodType<T>;
  check?(value: T, file: Readonly<Record<string, unknown>>): ImportIssue[];
  apply(ctx: ImportContext, value: T, file: Readonly<Record<string, unknown>>): Promise<R>;
  /** One line per applied item, for people. */
  describe?(result: R): string[];
};

/** Keeps a section's value type while it sits in the registry's list. */
export const importSection = <T, R>(section: ImportSection<T, R>): ImportSection<T, R> => section;
