import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { manageClient } from '../helpers/manageClient.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const tokenOf = (output: string) => /\/dashboard\/invitation#token=(usr_[0-9a-z]+\.[0-9A-Za-z]{32})/.exec(output)?.[1];

describe('invitation links from the CLI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('`user create` prints a link to set a password; `user reset-password` prints a new one and the old password stops working', async () => {
    const org = await createOrganization(server.cliContext(), { name: 'CLI Org', timezone: 'UTC' });
    const env = { DATA_DIR: server.dataDir };
    const created = await runCli(['user', 'create', '--email', 'cli-person@example.com', '--org', org.id], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^user usr_\w+ created: cli-person@example.com\nInvitation link \(one use, until \d{4}-/);
    const first = tokenOf(created.stdout)!;
    expect(first).toBeDefined();

    const client = manageClient(server);
    expect((await client.json('POST', '/manage/api/invitations/accept', { token: first, password: 'first passphrase' })).status).toBe(200);
    // Adding the same person again prints no link: they can sign in already.
    const again = await runCli(['user', 'create', '--email', 'cli-person@example.com', '--org', org.id], env);
    expect(again.stdout).not.toContain('Invitation link');

    const reset = await runCli(['user', 'reset-password', '--email', 'CLI-Person@example.com'], env);
    expect(reset.code, reset.stderr).toBe(0);
    const second = tokenOf(reset.stdout)!;
    expect(second).not.toBe(first);
    expect((await manageClient(server).json('POST', '/manage/api/invitations/accept', { token: second, password: 'second passphrase' })).status).toBe(200);
    expect((await manageClient(server).json('POST', '/manage/api/sign-in', { email: 'cli-person@example.com', password: 'first passphrase' })).status).toBe(422);
    expect((await manageClient(server).json('POST', '/manage/api/sign-in', { email: 'cli-person@example.com', password: 'second passphrase' })).status).toBe(200);

    const unknown = await runCli(['user', 'reset-password', '--email', 'nobody@example.com'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no user has the email 'nobody@example.com'");
    const badRole = await runCli(['user', 'create', '--email', 'x@example.com', '--org', org.id, '--role', 'admin'], env);
    expect(badRole.stderr).toContain("--role: 'admin' is not owner or member");
  });
});
