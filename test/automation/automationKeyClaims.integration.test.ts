import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import type { SequenceImportResult } from '../../modules/automation/automationImport.ts';
import { KEY_CLAIMS_BACKFILLED_STREAM } from '../../modules/automation/automationKeys.ts';
import { runImport } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('sequence and trigger keys are claimed on streams; sequences made before claims existed are found', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  const importSequence = async (organizationId: string, triggers: string[]) => {
    const file = { sequences: [{ key: 'signups', name: 'Sign-ups', actions: [], triggers: triggers.map((key) => ({ key, name: key })) }] };
    const result = await runImport({ command: server.cliContext(organizationId), organizationId, catchUp: async () => undefined }, file);
    return (result.sections.sequences as SequenceImportResult[])[0]!;
  };

  it('the first import on a log written without claims updates the old sequence and its trigger, once per organization', async () => {
    const mine = await server.identity('Mine');
    const theirs = await server.identity('Theirs');
    // The log as an older version wrote it: sequences and triggers with keys, and no claim streams.
    const old = await createSequence(server.cliContext(mine.organizationId), { organizationId: mine.organizationId, key: 'signups', name: 'Old', actions: [] });
    const oldTrigger = await createTrigger(server.cliContext(mine.organizationId), { organizationId: mine.organizationId, sequenceId: old.id, key: 'form', name: 'Form' });
    const other = await createSequence(server.cliContext(theirs.organizationId), { organizationId: theirs.organizationId, key: 'signups', name: 'Other', actions: [] });
    expect(await server.services.store.readStream(KEY_CLAIMS_BACKFILLED_STREAM)).toEqual([]);

    const imported = await importSequence(mine.organizationId, ['form', 'second']);
    expect(imported).toMatchObject({ sequence_id: old.id, created: false, changed: true });
    expect(imported.triggers).toEqual([
      { key: 'form', trigger_id: oldTrigger.id, created: false, catch_path: `/hooks/catch/${old.route_key}/${oldTrigger.route_key}`, event_type: null },
      expect.objectContaining({ key: 'second', created: true }),
    ]);
    expect(await server.services.store.readStream(KEY_CLAIMS_BACKFILLED_STREAM)).toHaveLength(1);
    expect(await importSequence(theirs.organizationId, [])).toMatchObject({ sequence_id: other.id, created: false });

    // Again: everything is found by its claim, nothing is recorded.
    const head = await server.services.store.headPosition();
    expect(await importSequence(mine.organizationId, ['form', 'second'])).toMatchObject({ sequence_id: old.id, created: false, changed: false });
    expect(await server.services.store.headPosition()).toBe(head);

    // A new organization's key is claimed for a new sequence.
    const fresh = await server.identity('Fresh');
    const created = await importSequence(fresh.organizationId, ['form']);
    expect(created).toMatchObject({ created: true, triggers: [{ key: 'form', created: true }] });
    expect(created.sequence_id).not.toBe(old.id);
  });

  it('two imports of one new key at once make one sequence', async () => {
    const org = await server.identity('Racing');
    const [a, b] = await Promise.all([importSequence(org.organizationId, ['form']), importSequence(org.organizationId, ['form'])]);
    expect(a.sequence_id).toBe(b.sequence_id);
    expect(a.triggers[0]!.trigger_id).toBe(b.triggers[0]!.trigger_id);
  });
});
