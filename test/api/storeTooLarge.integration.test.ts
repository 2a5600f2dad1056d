import { MaxAppendSizeExceededError } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPortError } from '../../platform/eventStore/esdb/esdbMapping.ts';
import { automationFixture, TEST_ENV } from '../automation/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// EventStoreDB cannot run here: the append fails with what the ESDB adapter makes of the client's
// own MaxAppendSizeExceededError, and the rest (command, route, error handler) is the real server.
describe('an event store that refuses an append as too large (EventStoreDB MaxAppendSize)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers 413 payload_too_large in our error shape, not 500, and records nothing', async () => {
    const { organizationId } = await server.identity();
    const { path } = await automationFixture(server, organizationId, []);
    const head = await server.services.store.headPosition();
    const append = server.services.store.append;
    server.services.store.append = async () => {
      throw toPortError(MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576));
    };
    try {
      const res = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'big@example.com' }) });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ message: 'The request is too large to record.', code: 'payload_too_large' });
    } finally {
      server.services.store.append = append;
    }
    expect(await server.services.store.headPosition()).toBe(head);
  });
});
