import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDataDir } from '../helpers/serverProcess.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `commerce coupons …` and `commerce promotion-codes …` as they ship, one process per run. */
describe('commerce coupons and promotion-codes', { timeout: 180_000 }, () => {
  const dataDir = tempDataDir('commerce-coupons-cli-');
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seeds the demo with LAUNCH20, creates and lists coupons and codes, and refuses bad flags with the field', async () => {
    const demo = await commerce('demo', '--json');
    expect(demo.code, demo.stderr).toBe(0);
    const seeded = await commerce('promotion-codes', 'list', '--json');
    expect(seeded.code, seeded.stderr).toBe(0);
    expect((JSON.parse(seeded.stdout) as Body[]).map((c) => [c.code, c.coupon.percent_off, c.coupon.duration])).toEqual([['LAUNCH20', 20, 'once']]);

    const created = await commerce('coupons', 'create', '--id', 'SPRING', '--amount-off', '500', '--currency', 'EUR', '--max-redemptions', '10', '--name', 'Spring');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('coupon created: SPRING (Spring)');
    expect(created.stdout).toContain('0/10 redeemed');
    const code = await commerce('promotion-codes', 'create', 'SPRING', '--code', 'spring5', '--first-time');
    expect(code.code, code.stderr).toBe(0);
    expect(code.stdout).toMatch(/promotion code created: spring5 {2}promo_\w+ {2}coupon SPRING {2}active/);

    const list = await commerce('coupons', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^SPRING \(Spring\) {2}€5\.00 off, once {2}0\/10 redeemed$/);
    expect(list.stdout).toContain('LAUNCH20 (Launch)  20% off, once  0 redeemed');

    const bad = await commerce('coupons', 'create', '--percent-off', '150', '--json');
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.stderr)).toMatchObject({ errors: { percent_off: [expect.any(String)] } });
    const taken = await commerce('promotion-codes', 'create', 'SPRING', '--code', 'LAUNCH20');
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain('already in use');
  });
});
