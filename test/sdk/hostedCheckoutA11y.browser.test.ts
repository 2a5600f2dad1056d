import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium, openPage, seedOffer } from './sdkFixtures.ts';

/*
 * The hosted checkout page alone in a tab, as a buyer on a keyboard, with a screen reader (the
 * accessibility tree and ARIA), and on a 360 px phone. The SDK's frames are covered in
 * sdk.browser.test.ts and sdkEdgeCases.browser.test.ts.
 */

let server: TestServer;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
const errors: string[] = [];
const PHONE = { width: 360, height: 740 };
mkdirSync('test-results', { recursive: true });

beforeAll(async () => {
  // The browser first: without one, the file fails at once with the line that says how to get one.
  chrome = await launchChromium();
  server = await startTestServer();
  const org = await server.identity();
  await seedOffer(server, org.organizationId, 'pro-plan');
  // A theme color too pale to show a focus ring on white.
  await seedOffer(server, org.organizationId, 'pale-plan', { name: 'Pale', color: '#fde047' });
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

async function checkout(offer = 'pro-plan', viewport?: { width: number; height: number }): Promise<Page> {
  return openPage(chrome.context, `${server.url}/checkout/${offer}?mode=test`, {
    errors,
    viewport,
    ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled,
  });
}

async function fill(page: Page, o: { email?: string; number?: string; exp?: string; cvc?: string } = {}): Promise<void> {
  await page.fill('#co-email', o.email ?? 'buyer@example.com');
  await page.fill('#co-number', o.number ?? '4242424242424242');
  await page.fill('#co-exp', o.exp ?? '12 / 30');
  await page.fill('#co-cvc', o.cvc ?? '123');
}

/*
 * In-page helpers as source text: the test transform names nested functions with a helper that
 * does not exist in the page.
 */
const RGB = `const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m[3] ?? 1 }; };
const lum = (c) => [c.r, c.g, c.b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
const ratio = (x, y) => { const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p); return (a + 0.05) / (b + 0.05); };
const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a) });`;

/** Every visible text under 4.5:1 against what is painted behind it (its ancestors' backgrounds). */
const lowContrast = (page: Page) =>
  page.evaluate(`(() => { ${RGB}
    const behind = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.a > 0) { layers.push(c); if (c.a >= 1) break; } }
      return layers.reverse().reduce((under, top) => over(top, under), { r: 255, g: 255, b: 255 });
    };
    const low = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || el.closest('.co-sr') || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const bg = behind(el);
      const r = ratio(over(rgb(getComputedStyle(el).color), bg), bg);
      if (r < 4.5) low.push(r.toFixed(2) + ' ' + JSON.stringify(n.textContent.trim().slice(0, 30)));
    }
    return low;
  })()`) as Promise<string[]>;

/** The focused element's outline: its style, width, and contrast against white. */
const focusRing = (page: Page) =>
  page.evaluate(`(() => { ${RGB}
    const a = document.activeElement, cs = getComputedStyle(a);
    return { id: a.id, style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), contrast: Number(ratio(rgb(cs.outlineColor), { r: 255, g: 255, b: 255 }).toFixed(2)) };
  })()`) as Promise<{ id: string; style: string; width: number; contrast: number }>;

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);

describe('what a screen reader is told', () => {
  test('lang, a title, a name for every field and the pay button, autocomplete and a numeric keypad for the card', async () => {
    const page = await checkout();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe('Checkout · Pro Plan');
    const tree = await page.locator('#co-form').ariaSnapshot();
    // A name holds the text the field shows (placeholder), so "click CVC" works by voice too.
    for (const name of ['Email', 'Name on card', 'Discount code', 'Card number', 'Expiry date (MM / YY)', 'Security code (CVC)']) expect(tree).toContain(`textbox "${name}"`);
    expect(tree).toContain('button "Apply"');
    expect(tree).toContain('button "Buy now · €49.00"');
    const fields = await page.$$eval('#co-form input', (els) => els.map((e) => [e.id, e.getAttribute('autocomplete'), e.getAttribute('inputmode')]));
    expect(fields).toEqual([
      ['co-email', 'email', null],
      ['co-name', 'cc-name', null],
      ['co-discount', 'off', null],
      ['co-number', 'cc-number', 'numeric'],
      ['co-exp', 'cc-exp', 'numeric'],
      ['co-cvc', 'cc-csc', 'numeric'],
    ]);
    await page.close();
  });

  test('Enter in a field that is wrong says what is wrong, though focus does not move', async () => {
    const page = await checkout();
    await fill(page);
    await page.fill('#co-email', 'nope');
    await page.keyboard.press('Enter');
    await page.locator('#co-email-error:not([hidden])').waitFor();
    expect(await focusedId(page)).toBe('co-email');
    expect(await page.textContent('#co-status')).toBe('Enter a valid email address.');
    await page.close();
  });

  test('a declined card is announced, named as the card number\'s error, and focus goes back to the card number', async () => {
    const page = await checkout();
    await fill(page, { number: '4000000000000002' });
    await page.focus('#co-pay');
    await page.keyboard.press('Enter');
    await page.locator('#co-error:not([hidden])').waitFor();
    expect(await page.getAttribute('#co-error', 'role')).toBe('alert');
    expect(await page.textContent('#co-error')).toContain('declined');
    expect(await focusedId(page)).toBe('co-number');
    expect(await page.getAttribute('#co-number', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#co-number', 'aria-describedby')).toBe('co-error');
    await page.screenshot({ path: 'test-results/checkout-declined.png' });
    // Typing another card takes the stale error off the field.
    await page.keyboard.type('4242');
    expect(await page.getAttribute('#co-number', 'aria-describedby')).toBeNull();
    await page.close();
  });

  test('while paying, the pay button keeps focus, says it is busy, and the wait is announced', async () => {
    const page = await checkout();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/checkout/sessions/*/pay', async (route) => {
      await held;
      await route.continue();
    });
    await fill(page);
    await page.focus('#co-pay');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('co-pay')!.getAttribute('aria-busy') === 'true');
    expect(await focusedId(page)).toBe('co-pay');
    expect(await page.getAttribute('#co-pay', 'aria-disabled')).toBe('true');
    expect(await page.getAttribute('#co-status', 'role')).toBe('status');
    expect(await page.textContent('#co-status')).toBe('Processing your payment…');
    // A second Enter while busy pays nothing twice.
    await page.keyboard.press('Enter');
    release();
    await page.locator('#page-thank_you:not([hidden])').waitFor();
    expect(await page.textContent('#co-status')).toBe('');
    await page.close();
  });

  test('after paying, focus is on the thank-you heading, so the buyer hears the purchase went through', async () => {
    const page = await checkout();
    await fill(page);
    await page.click('#co-pay');
    await page.locator('#page-thank_you:not([hidden])').waitFor();
    expect(await page.evaluate(() => [document.activeElement?.tagName, document.activeElement?.textContent])).toEqual(['H1', 'Thank you!']);
    expect(await page.textContent('#co-receipt')).toBe('€49.00 paid with Visa •••• 4242.');
    await page.close();
  });
});

describe('what a keyboard user and a phone user see', () => {
  test('every text reads at 4.5:1 or more, in the form, its errors and the thank-you page', async () => {
    const page = await checkout();
    expect(await lowContrast(page)).toEqual([]);
    await fill(page, { email: 'nope', exp: '13 / 99', cvc: '' });
    await page.click('#co-pay');
    expect(await lowContrast(page)).toEqual([]);
    await fill(page);
    await page.click('#co-pay');
    await page.locator('#page-thank_you:not([hidden])').waitFor();
    expect(await lowContrast(page)).toEqual([]);
    await page.close();
  });

  test('Tab follows the visual order, and each stop shows a solid ring at 3:1 against white, even on a pale theme', async () => {
    for (const offer of ['pro-plan', 'pale-plan']) {
      const page = await checkout(offer);
      const stops: string[] = [];
      const tops: number[] = [];
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        const ring = await focusRing(page);
        stops.push(ring.id);
        // From the top of the page: the form is taller than the window, which scrolls to the focus.
        tops.push(await page.evaluate(() => Math.round(document.activeElement!.getBoundingClientRect().top + window.scrollY)));
        expect(ring.style, `${offer} ${ring.id}`).toBe('solid');
        expect(ring.width, `${offer} ${ring.id}`).toBeGreaterThanOrEqual(2);
        expect(ring.contrast, `${offer} ${ring.id}`).toBeGreaterThanOrEqual(3);
      }
      expect(stops).toEqual(['co-email', 'co-name', 'co-discount', 'co-discount-apply', 'co-number', 'co-exp', 'co-cvc', 'co-pay']);
      expect(tops).toEqual([...tops].sort((a, b) => a - b));
      if (offer === 'pale-plan') await page.screenshot({ path: 'test-results/checkout-focus-pale.png' });
      await page.close();
    }
  });

  test('a card field with an error is marked as one, not only by the text below the card', async () => {
    const page = await checkout();
    await fill(page, { exp: '13 / 99' });
    await page.click('#co-pay');
    expect(await page.getAttribute('#co-exp', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#co-exp', 'aria-describedby')).toBe('co-exp-error');
    // The card's inputs have no border of their own: the error is drawn inside the field.
    // (Waited for: the field's shadow eases in.)
    await page.waitForFunction(() => getComputedStyle(document.getElementById('co-exp')!).boxShadow.startsWith('rgb(185, 28, 28)'), null, { timeout: 2000 });
    expect(await page.$eval('#co-cvc', (e) => getComputedStyle(e).boxShadow)).not.toContain('rgb(185, 28, 28)');
    await page.close();
  });

  test('at 360 px the page uses the whole width with no horizontal scroll, in the form and its errors', async () => {
    const page = await checkout('pro-plan', PHONE);
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    expect(await fits()).toBe(true);
    const box = await page.locator('main.co').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: PHONE.width });
    await fill(page, { email: 'nope', number: '4000000000000002', exp: '1' });
    await page.click('#co-pay');
    expect(await fits()).toBe(true);
    await page.screenshot({ path: 'test-results/checkout-360-errors.png', fullPage: true });
    await page.close();
  });

  test('an offer that is not available says so in a heading, in the same language and layout', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/no-such-offer`, { errors, viewport: PHONE, ready: () => document.readyState === 'complete' });
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe('This checkout is not available');
    expect(await page.locator('main').ariaSnapshot()).toContain('heading "This checkout is not available" [level=1]');
    expect(await lowContrast(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.close();
  });
});

describe('motion', () => {
  test('with reduced motion, the loading shimmer and the pay spinner do not move', async () => {
    const page = await chrome.context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(`${server.url}/checkout/pro-plan?mode=test`);
    const moving = await page.evaluate(() => [...document.querySelectorAll('.is-loading, .co-spin')].map((e) => getComputedStyle(e).animationName));
    expect(moving.length).toBeGreaterThan(0);
    expect(moving.every((n) => n === 'none')).toBe(true);
    await page.close();
  });
});
