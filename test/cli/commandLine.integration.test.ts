import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCommands } from '../../cli/commands/index.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer } from '../helpers/testServer.ts';
import { json, makeOffer } from '../checkout/checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What a newcomer types at the real `commerce` CLI: help, typos, missing and extra arguments, hand-edited files. */
// Each case starts several CLI processes (seconds each on a busy two-core machine).
describe('commerce CLI: help and usage errors', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-cli-usage-'));
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  beforeAll(async () => {
    // The demo organization, catalog, sequence and promo: what a newcomer has after the quick start.
    const result = await commerce('demo', '--json');
    expect(result.code, result.stderr).toBe(0);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('`<command> --help` and `help <command>` print that command’s usage on stdout and exit 0', async () => {
    // One command of each kind (long-running, standalone, one word, two words, with options), not
    // all 24: a process start costs seconds on a busy machine, and every command's help comes from one function.
    const sample = await loadCommands(['serve', 'backup', 'import', 'replay session', 'projections rebuild'].map((words) => words.split(' ')));
    for (const command of sample) {
      // One after the other: the suite runs beside other process-starting tests on two cores.
      const run = await commerce(...command.path, '--help');
      expect(run.code, `${command.usage}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain(`usage: commerce ${command.usage}`);
      // Wrapped at 80 columns: the words, whatever the line breaks.
      expect(run.stdout.replace(/\s+/g, ' ')).toContain(command.description);
      expect(run.stderr).toBe('');
    }
    const viaHelp = await commerce('help', 'import');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('usage: commerce import FILE --org ORG [--json]');
    const short = await commerce('org', 'create', '-h');
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('usage: commerce org create --name N [--timezone TZ]');
  });

  it('a first word with subcommands lists them: with --help on stdout (exit 0), alone or mistyped as a usage error (exit 2)', async () => {
    const help = await commerce('api-key', '--help');
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('api-key create --user U --org ORG');
    expect(help.stdout).toContain('api-key revoke ID');
    expect(help.stdout).not.toContain('org create');

    const alone = await commerce('api-key');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("commerce: 'api-key' needs one of: create, list, revoke");

    const typo = await commerce('api-key', 'crate');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("commerce: unknown command 'api-key crate'");
    expect(typo.stderr).toContain('api-key revoke ID');
  });

  it('an unknown option or one without its value is a usage error (exit 2) naming the options the command takes', async () => {
    const unknown = await commerce('org', 'create', '--name', 'Acme', '--tz', 'UTC');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('commerce: org create: unknown option --tz; it takes --name, --timezone, --json (see commerce org create --help)');

    const missingValue = await commerce('org', 'create', '--name');
    expect(missingValue.code).toBe(2);
    expect(missingValue.stderr.trim()).toBe('commerce: org create: --name needs a value');

    const jsonOnServe = await commerce('serve', '--json');
    expect(jsonOnServe.code).toBe(2);
    expect(jsonOnServe.stderr).toContain('serve: unknown option --json; it takes no options');
  });

  it('an argument too many is refused before anything is written, so a forgotten --org is not read as the key alone', async () => {
    const imported = await commerce('import', join(import.meta.dirname, '../../examples/catalog.json'), '--org', 'org_demo', '--json');
    expect(imported.code, imported.stderr).toBe(0);

    const extra = await commerce('product', 'archive', 'photo-basics', 'org_demo');
    expect(extra.code).toBe(2);
    expect(extra.stderr.trim()).toBe("commerce: product archive: unexpected argument 'org_demo'; usage: commerce product archive ID [--org ORG]");
    const demoExtra = await commerce('demo', 'again');
    expect(demoExtra.code).toBe(2);
    expect(demoExtra.stderr).toContain("demo: unexpected argument 'again'");

    const product = JSON.parse((await commerce('product', 'publish', 'photo-basics', '--org', 'org_demo', '--json')).stdout) as Body;
    expect(product).toMatchObject({ key: 'photo-basics', changed: false, version_number: 1 });
  });

  it('api-key create --user with an email says the id is wanted and how to get it', async () => {
    const run = await commerce('api-key', 'create', '--user', 'demo@example.com', '--org', 'org_demo');
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      "commerce: --user takes the user's id (usr_…), not an email: 'commerce user create --email demo@example.com --org org_demo' prints it",
    );
    const made = await commerce('user', 'create', '--email', 'demo@example.com', '--org', 'org_demo', '--json');
    expect(JSON.parse(made.stdout)).toMatchObject({ id: expect.stringMatching(/^usr_/), created: false, joined: false });
  });

  it('user create for a member says so, rather than that it added the user again', async () => {
    const member = await commerce('user', 'create', '--email', 'demo@example.com', '--org', 'org_demo');
    expect(member.code, member.stderr).toBe(0);
    expect(member.stdout).toMatch(/^user usr_\w+ \(demo@example\.com\) was already a member of the organization$/m);

    const org = JSON.parse((await commerce('org', 'create', '--name', 'Second shop', '--json')).stdout) as Body;
    const joined = await commerce('user', 'create', '--email', 'demo@example.com', '--org', org.id as string);
    expect(joined.stdout).toContain('(demo@example.com) added to the organization');
  });

  it('an import key given without --org is answered with the hint to add --org', async () => {
    const run = await commerce('product', 'archive', 'photo-basics');
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "commerce: Product not found. No product has the route key 'photo-basics'; to find one by its import key, add --org ORG.",
    );
  });

  it('an import file with a syntax error names the line and column; a byte order mark is no error', async () => {
    const broken = join(dataDir, 'broken.json');
    writeFileSync(broken, '{\n  "families": [\n    {"lookup_key": "x", "name": "X",}\n  ]\n}\n');
    const run = await commerce('import', broken, '--org', 'org_demo');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(file): Not valid JSON at line 3, column 37:');

    const withBom = join(dataDir, 'bom.json');
    writeFileSync(withBom, `\uFEFF${JSON.stringify({ families: [{ lookup_key: 'bom', name: 'From Notepad' }] })}`);
    const bom = await commerce('import', withBom, '--org', 'org_demo', '--json');
    expect(bom.code, bom.stderr).toBe(0);
    expect(JSON.parse(bom.stdout)).toMatchObject({ sections: { families: { count: 1 } } });
  });

  it('lists with nothing to show say (none) rather than printing a header alone', async () => {
    for (const list of ['sequence', 'trigger', 'promo']) {
      const run = await commerce(list, 'list', '--org', 'org_nobody');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('(none)');
    }
    expect((await commerce('promo', 'list', '--org', 'org_demo')).stdout).toContain('demo-launch');
  });

  it('replay shows amounts in the currency’s own decimals: 1500 JPY is ¥1500, not 15.00', async () => {
    const server = await startTestServer({ dataDir: mkdtempSync(join(tmpdir(), 'commerce-cli-jpy-')) });
    try {
      const { organizationId } = await server.identity('Yen Store');
      const offer = await makeOffer(server, organizationId, {
        content: { currency: 'JPY', plan: { product_id: 'p', plan_id: 'plan_yen', plan_name: 'yen', charges: [{ id: 'c1', name: 'Course', amount: 1500 }] } },
      });
      const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
      expect(created.session).toMatchObject({ total: 1500, currency: 'JPY' });
      const replay = await runCli(['replay', 'session', created.session.id as string], { DATA_DIR: server.dataDir });
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toContain('¥1,500');
      expect(replay.stdout).not.toContain('15.00 JPY');
    } finally {
      await server.close({ remove: true });
    }
  });
});
