import { mkdirSync } from 'node:fs';
import type { FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { enrol, flowResult, launchChromium, openPage, seedOffer, seedPromo, startFlow, type Loose } from './sdkFixtures.ts';

/* The browser SDK and the hosted checkout page in a real Chromium, against the real checkout routes. */

type Win = Window & { sdk: Loose; examples: { readyAt?: number; log: string[] }; flows: Record<string, Loose>; seen: Record<string, string[]> };

let server: TestServer;
let orgId: string;
let sellerToken: string;
/** When the spring promo ends (Unix seconds): its countdowns are checked against it. */
let promoEndsAt: number;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
const errors: string[] = [];
mkdirSync('test-results', { recursive: true });

beforeAll(async () => {
  // The browser first: without one, the file fails at once with the line that says how to get one.
  chrome = await launchChromium();
  server = await startTestServer();
  const org = await server.identity();
  await seedOffer(server, org.organizationId, 'pro-plan');
  await seedOffer(server, org.organizationId, 'starter-plan', { name: 'Starter', color: '#7c3aed', amount: 1900, currency: 'USD' });
  ({ endsAt: promoEndsAt } = await seedPromo(server, org.organizationId, 'spring'));
  orgId = org.organizationId;
  sellerToken = org.token;
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

function openExample(query = 'offer=pro-plan&second=starter-plan&promo=spring'): Promise<Page> {
  return openPage(chrome.context, `${server.url}/examples/sdk?${query}`, { errors, ready: () => (window as unknown as Win).examples?.readyAt });
}


const result = flowResult;

/** Once the page's transitions have run to their end (a spinner's endless one aside): a picture shows where they land. */
const transitionsDone = (page: Page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));

/**
 * Seconds to the spring promo's end as a countdown computed between `before` and `after` (ms)
 * may show them: the SDK estimates the server's clock from its whole-second server_time, which
 * may put it up to a second behind; a second more for rounding.
 */
function expectSecondsLeft(seconds: number | null, before: number, after: number): void {
  expect(seconds).toBeGreaterThanOrEqual(promoEndsAt - Math.ceil(after / 1000) - 2);
  expect(seconds).toBeLessThanOrEqual(promoEndsAt - Math.floor(before / 1000) + 2);
}

const countdownSeconds = (text: string | null) => {
  const m = /^Ends in (\d\d):(\d\d):(\d\d)$/.exec(text ?? '');
  expect(m, `countdown ${JSON.stringify(text)}`).not.toBeNull();
  return Number(m![1]) * 3600 + Number(m![2]) * 60 + Number(m![3]);
};

async function pay(frame: FrameLocator, card = '4242424242424242', email?: string): Promise<void> {
  await frame.locator('#co-pay:not([disabled])').waitFor();
  if (email) await frame.locator('#co-email').fill(email);
  await frame.locator('#co-number').fill(card);
  await frame.locator('#co-exp').fill('12 / 30');
  await frame.locator('#co-cvc').fill('123');
  await frame.locator('#co-pay').click();
}

async function serverSession(id: string): Promise<{ session: { status: string; invoice: { status: string } | null } }> {
  const res = await server.fetch(`/api/checkout/sessions/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

describe('present() in each frame modality', () => {
  for (const frameName of ['modal', 'slideout', 'bottom sheet'] as const) {
    test(`buys through a ${frameName} with a test card; events, result and server state agree`, async () => {
      const page = await openExample();
      await startFlow(page, 'f', `sdk.present('pro-plan', { frame: '${frameName}', size: 'md', mode: 'test', metadata: { order_ref: 'A-1' } })`);
      const css = frameName === 'bottom sheet' ? 'bottom-sheet' : frameName;
      await page.locator(`.csdk-root.csdk-${css}.csdk-ready`).waitFor();
      const frame = page.locator('.csdk-root iframe').contentFrame();
      await frame.locator('#co-pay:not([disabled])').waitFor();
      await expect(frame.locator('#co-total').textContent()).resolves.toBe('€49.00');
      await transitionsDone(page);
      await page.screenshot({ path: `test-results/sdk-${css}.png` });

      await pay(frame);
      await frame.locator('#page-thank_you:not([hidden])').waitFor();
      // Focus on Done, which a screen reader reads with the receipt it is described by.
      expect(await frame.locator('#co-done').evaluate((e) => e === document.activeElement && e.getAttribute('aria-describedby'))).toBe('co-receipt');
      const r = await result(page, 'f');
      expect(r.status).toBe('complete');
      expect(r.session!.status).toBe('completed');
      // The page's consumer of the events records them a few microtasks after the result.
      await page.waitForFunction(() => (window as unknown as Win).seen.f!.includes('complete'));
      expect(await page.evaluate(() => (window as unknown as Win).seen.f)).toEqual(['start', 'purchase', 'complete']);
      await page.screenshot({ path: `test-results/sdk-${css}-paid.png` });

      // A consumer that starts after the end still gets every event, then the iteration ends.
      const late = await page.evaluate(async () => {
        const types: string[] = [];
        for await (const ev of (window as unknown as Win).flows.f.events) types.push(ev.type);
        return types;
      });
      expect(late).toEqual(['start', 'purchase', 'complete']);
      const purchase = await page.evaluate(async () => {
        for await (const ev of (window as unknown as Win).flows.f.events) if (ev.type === 'purchase') return ev;
        return null;
      });
      expect(purchase.session.id).toBe(r.session!.id);
      expect(purchase.payment).toEqual({ brand: 'visa', last4: '4242' });

      const s = await serverSession(r.session!.id);
      expect(s.session.status).toBe('completed');
      expect(s.session.invoice?.status).toBe('paid');

      // Done closes the frame; the result stays complete.
      await frame.locator('#co-done').click();
      await page.locator('.csdk-root').waitFor({ state: 'detached' });
      expect((await result(page, 'f')).status).toBe('complete');
      await page.close();
    });
  }

  test('a declined card shows a clear error, the flow stays open, and another card then succeeds', async () => {
    const page = await openExample();
    await startFlow(page, 'f', `sdk.present('pro-plan', { mode: 'test' })`);
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await pay(frame, '4000000000000002');
    await expect(frame.locator('#co-error')).toBeDefined();
    await frame.locator('#co-error:not([hidden])').waitFor();
    expect(await frame.locator('#co-error').textContent()).toContain('declined');
    await page.screenshot({ path: 'test-results/sdk-modal-declined.png' });
    expect(await page.evaluate(() => (window as unknown as Win).flows.f.result)).toBeNull();
    expect(await page.evaluate(() => (window as unknown as Win).seen.f)).toEqual(['start']);
    await frame.locator('#co-number').fill('4242424242424242');
    await frame.locator('#co-pay').click();
    expect((await result(page, 'f')).status).toBe('complete');
    await page.close();
  });
});

describe('a buyer who corrects the email after a declined card', () => {
  test('pays with the corrected email, and the paid invoice is made out to it', async () => {
    const page = await openExample();
    await startFlow(page, 'f', `sdk.present('pro-plan', { mode: 'test' })`);
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await pay(frame, '4000 0000 0000 0002', 'ada@exmaple.com');
    await frame.locator('#co-error:not([hidden])').waitFor();
    expect(await frame.locator('#co-error').textContent()).toContain('declined');

    await frame.locator('#co-email').fill('ada@example.com');
    await frame.locator('#co-number').fill('4242 4242 4242 4242');
    await frame.locator('#co-pay').click();
    const r = await result(page, 'f');
    expect(r.status).toBe('complete');

    const res = await server.fetch(`/api/checkout/sessions/${r.session!.id}/history`, { token: sellerToken });
    expect(res.status).toBe(200);
    const { state } = (await res.json()) as { state: { customer: { email: string }; invoice: { status: string; customer: { email: string } } } };
    expect(state.invoice).toMatchObject({ status: 'paid', customer: { email: 'ada@example.com' } });
    expect(state.customer.email).toBe('ada@example.com');
    await page.close();
  });
});

describe('mount() and data-service-mount (embedded)', () => {
  test('the declarative mount buys inline; from() gives its handle; mount() again returns the same one', async () => {
    const page = await openExample();
    await page.locator('#inline .csdk-embedded.csdk-ready').waitFor();
    const same = await page.evaluate(() => {
      const w = window as unknown as Win;
      const h = w.sdk.from(document.querySelector('#inline'));
      w.flows.inline = h;
      w.seen.inline = [];
      void (async () => {
        for await (const ev of h.events) w.seen.inline!.push(ev.type);
      })();
      return h !== null && w.sdk.mount('#inline', 'starter-plan') === h && document.querySelectorAll('#inline iframe').length === 1;
    });
    expect(same).toBe(true);
    const frame = page.locator('#inline iframe').contentFrame();
    // identify() queued before the script loaded reached the mount declared in the HTML.
    await expect(frame.locator('#co-email').inputValue()).resolves.toBe('buyer@example.com');
    await page.locator('#inline').scrollIntoViewIfNeeded();
    await page.locator('#inline').screenshot({ path: 'test-results/sdk-embedded.png' });
    await pay(frame);
    const r = await result(page, 'inline');
    expect(r.status).toBe('complete');
    expect((await serverSession(r.session!.id)).session.invoice?.status).toBe('paid');
    expect(await page.evaluate(() => (window as unknown as Win).seen.inline)).toEqual(['start', 'purchase', 'complete']);
    await page.close();
  });

  test('an element leaving the DOM tears its mount down and resolves closed; elements added later mount', async () => {
    const page = await openExample();
    await page.evaluate(() => {
      const el = document.createElement('div');
      el.id = 'later';
      el.setAttribute('data-service-mount', 'pro-plan');
      el.setAttribute('data-service-mode', 'test');
      document.body.appendChild(el);
    });
    await page.locator('#later .csdk-embedded.csdk-ready').waitFor();
    await page.evaluate(() => {
      const w = window as unknown as Win;
      w.flows.later = w.sdk.from('#later');
      document.querySelector('#later')!.remove();
    });
    expect((await result(page, 'later')).status).toBe('closed');
    expect(await page.locator('iframe[title=Checkout]').count()).toBe(1); // only #inline's
    await page.close();
  });
});

describe('flow isolation and the channel', () => {
  test('two flows open at once never see each other’s events', async () => {
    const page = await openExample();
    await page.evaluate(() => {
      for (const id of ['a', 'b']) {
        const d = document.createElement('div');
        d.id = id;
        document.body.appendChild(d);
      }
    });
    await startFlow(page, 'a', `sdk.mount('#a', 'pro-plan', { mode: 'test' })`);
    await startFlow(page, 'b', `sdk.mount('#b', 'starter-plan', { mode: 'test' })`);
    const a = page.locator('#a iframe').contentFrame();
    const b = page.locator('#b iframe').contentFrame();
    await a.locator('#co-pay:not([disabled])').waitFor();
    await pay(b, '4242424242424242', 'b@example.com');
    const rb = await result(page, 'b');
    expect(rb.status).toBe('complete');
    expect(await page.evaluate(() => (window as unknown as Win).seen)).toMatchObject({ a: [], b: ['start', 'purchase', 'complete'] });
    expect(await page.evaluate(() => (window as unknown as Win).flows.a.result)).toBeNull();
    await pay(a, '4242424242424242', 'a@example.com');
    const ra = await result(page, 'a');
    expect(ra.status).toBe('complete');
    expect(ra.session!.id).not.toBe(rb.session!.id);
    expect(await page.evaluate(() => (window as unknown as Win).seen)).toMatchObject({ a: ['start', 'purchase', 'complete'], b: ['start', 'purchase', 'complete'] });
    await page.close();
  });

  test('forged messages from another frame and from the page change nothing', async () => {
    const page = await openExample();
    await startFlow(page, 'f', `sdk.present('pro-plan', { mode: 'test' })`);
    await page.locator('.csdk-root.csdk-ready').waitFor();
    const nonce = await page.evaluate(() => new URL(document.querySelector<HTMLIFrameElement>('.csdk-root iframe')!.src).searchParams.get('nonce'));
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    // Another frame that even knows the nonce says hello and claims a completed purchase.
    await page.evaluate(() => {
      const evil = document.createElement('iframe');
      evil.name = 'evil';
      evil.srcdoc = '<p>ad</p>';
      document.body.appendChild(evil);
    });
    await page.waitForFunction(() => document.querySelector<HTMLIFrameElement>('iframe[name=evil]')?.contentDocument?.readyState === 'complete');
    const evil = page.frame({ name: 'evil' })!;
    const fake = { id: 'cs_forged', status: 'completed', currency: 'EUR', total: 0 };
    await evil.evaluate(
      ([n, f]) => {
        parent.postMessage({ protocol: 'commerce-checkout/1', type: 'hello', nonce: n }, '*');
        parent.postMessage({ protocol: 'commerce-checkout/1', type: 'event', nonce: n, event: { type: 'complete', session: f } }, '*');
        parent.postMessage({ type: 'event', event: { type: 'purchase', session: f } }, '*');
      },
      [nonce, fake] as const,
    );
    await page.evaluate(
      ([n, f]) => {
        window.postMessage({ protocol: 'commerce-checkout/1', type: 'hello', nonce: n }, '*');
        window.postMessage({ type: 'event', nonce: n, event: { type: 'complete', session: f } }, '*');
      },
      [nonce, fake] as const,
    );
    // A message the page posts itself now arrives after all of those: the SDK has handled them.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const handler = (e: MessageEvent) => {
            if (e.data !== 'forged-done') return;
            removeEventListener('message', handler);
            resolve();
          };
          addEventListener('message', handler);
          postMessage('forged-done', '*');
        }),
    );
    expect(await page.evaluate(() => (window as unknown as Win).seen.f)).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as Win).flows.f.result)).toBeNull();
    // The real frame still works: the buyer cancels with the close button.
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-close').click();
    const r = await result(page, 'f');
    expect(r.status).toBe('cancel');
    expect(await page.evaluate(() => (window as unknown as Win).seen.f)).toEqual(['cancel']);
    expect((await serverSession(r.session!.id)).session.status).toBe('open');
    await page.locator('.csdk-root').waitFor({ state: 'detached' });
    await page.close();
  });

  test('cancel, Escape and close() are told apart, and awaiting never rejects', async () => {
    const page = await openExample();
    await startFlow(page, 'esc', `sdk.present('pro-plan', { frame: 'slideout', mode: 'test' })`);
    await page.locator('.csdk-root.csdk-ready').waitFor();
    // down, not press: the keydown closes the frame that has focus, and Chromium may never acknowledge
    // the keyup sent to a frame that is gone, so press() could wait for ever; the keydown is what dismisses.
    await page.keyboard.down('Escape');
    expect((await result(page, 'esc')).status).toBe('cancel');
    await startFlow(page, 'prog', `sdk.present('pro-plan', { frame: 'bottom-sheet', mode: 'test' })`);
    await page.locator('.csdk-root.csdk-ready').waitFor();
    await page.evaluate(() => (window as unknown as Win).flows.prog.close());
    expect((await result(page, 'prog')).status).toBe('closed');
    expect(await page.evaluate(() => (window as unknown as Win).seen.prog)).toEqual([]);
    expect(await page.locator('.csdk-root').count()).toBe(0);
    const fin = await page.evaluate(() => (window as unknown as Win).flows.prog.finally(() => undefined).then((r: { status: string }) => r.status));
    expect(fin).toBe('closed');
    await page.close();
  });
});

describe('attributes, identity, gates, preview', () => {
  test('data-service-present with frame, size and mode attributes; from() returns the button’s flow', async () => {
    const page = await openExample();
    await page.click('#buy-sheet');
    await page.locator('.csdk-root.csdk-bottom-sheet.csdk-size-lg').waitFor();
    const src = await page.evaluate(() => {
      const w = window as unknown as Win;
      w.flows.btn = w.sdk.from('#buy-sheet');
      return document.querySelector<HTMLIFrameElement>('.csdk-root iframe')!.src;
    });
    expect(new URL(src).searchParams.get('mode')).toBe('test');
    // Buttons added after load work too, and data-service-apply-promo passes the promo on.
    await page.evaluate(() => (window as unknown as Win).flows.btn.close());
    expect((await result(page, 'btn')).status).toBe('closed');
    await page.evaluate(() => {
      const box = document.createElement('div');
      box.setAttribute('data-service-apply-promo', 'spring');
      box.innerHTML = '<button id="added" data-service-present="pro-plan" data-service-frame="slideout" data-service-size="sm">Buy</button>';
      document.body.appendChild(box);
    });
    await page.click('#added');
    await page.locator('.csdk-root.csdk-slideout.csdk-size-sm').waitFor();
    const added = await page.evaluate(() => new URL(document.querySelector<HTMLIFrameElement>('.csdk-root iframe')!.src).searchParams.get('promo'));
    expect(added).toBe('spring');
    await page.evaluate(() => (window as unknown as Win).sdk.from('#added').close());
    await page.close();
  });

  test('data-service-frame="embedded" on a button renders inline just after it; a mount stays inline whatever its frame says', async () => {
    const page = await openExample();
    await page.evaluate(() => {
      const box = document.createElement('div');
      box.innerHTML =
        '<button id="inline-buy" data-service-present="pro-plan" data-service-frame="embedded" data-service-mode="test">Buy</button><p id="after">after</p>' +
        '<div id="framed-mount" data-service-mount="pro-plan" data-service-frame="modal" data-service-mode="test"></div>';
      document.body.appendChild(box);
    });
    await page.click('#inline-buy');
    await page.locator('#inline-buy + div .csdk-embedded.csdk-ready').waitFor();
    await page.locator('#framed-mount .csdk-embedded.csdk-ready').waitFor();
    const shape = await page.evaluate(() => {
      const w = window as unknown as Win;
      w.flows.inlineBuy = w.sdk.from('#inline-buy');
      w.flows.framedMount = w.sdk.from('#framed-mount');
      // An inline checkout is no dialog: nothing is made inert, no overlay root exists.
      return { overlays: document.querySelectorAll('.csdk-root').length, inert: document.querySelectorAll('[inert]').length, next: document.querySelector('#inline-buy')!.nextElementSibling!.id };
    });
    expect(shape).toEqual({ overlays: 0, inert: 0, next: '' });
    await page.click('#inline-buy'); // open already: a second click adds nothing
    expect(await page.locator('#inline-buy + div iframe').count()).toBe(1);
    await page.evaluate(() => (window as unknown as Win).flows.inlineBuy.close());
    expect((await result(page, 'inlineBuy')).status).toBe('closed');
    expect(await page.evaluate(() => document.querySelector('#inline-buy')!.nextElementSibling!.id)).toBe('after');
    await page.evaluate(() => (window as unknown as Win).flows.framedMount.close());
    expect((await result(page, 'framedMount')).status).toBe('closed');
    await page.close();
  });

  test('identify() fills the buyer in; reset() clears it and keeps the device id', async () => {
    const page = await openExample();
    const before = await page.evaluate(() => [(window as unknown as Win).sdk.deviceId, localStorage.getItem('commerce_sdk_device_id')]);
    expect(before[0]).toBe(before[1]);
    await page.evaluate(() => (window as unknown as Win).sdk.reset());
    await startFlow(page, 'f', `sdk.present('pro-plan', { mode: 'test' })`);
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    expect(await frame.locator('#co-email').inputValue()).toBe('');
    expect(await page.evaluate(() => localStorage.getItem('commerce_sdk_device_id'))).toBe(before[0]);
    await page.evaluate(() => (window as unknown as Win).flows.f.close());
    await expect(page.evaluate(() => (window as unknown as Win).sdk.identify('not an identity'))).rejects.toThrow(/signed user token \(JWT\) or an email/);
    await page.close();
  });

  test('gate(): a passing check presents nothing; a failing one presents the offer and resolves with the outcome', async () => {
    const page = await openExample();
    const passed = await page.evaluate(async () => {
      const w = window as unknown as Win;
      w.sdk.addGate('always', 'pro-plan', () => true);
      return w.sdk.gate('always');
    });
    expect(passed).toEqual({ name: 'always', passed: true, presented: false });
    await page.evaluate(() => {
      const w = window as unknown as Win;
      w.flows.gate = w.sdk.gate('pro-feature'); // registered by the example page; the check fails
    });
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await pay(frame);
    await frame.locator('#page-thank_you:not([hidden])').waitFor();
    const outcome = await result(page, 'gate');
    expect(outcome).toMatchObject({ name: 'pro-feature', passed: true, presented: true, result: { status: 'complete' } });
    await page.close();
  });

  test('preview mode renders every page of the offer and appends nothing', async () => {
    const page = await openExample();
    // The page's inline mount creates a session of its own; nothing orders that write before the
    // page is ready, so wait for the mount's frame to have its session before taking the head.
    await page.locator('#inline .csdk-embedded.csdk-ready').waitFor();
    await server.settle();
    const head = await server.services.store.headPosition();
    await page.click('#buy-preview');
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await page.locator('.csdk-root.csdk-ready').waitFor();
    expect(await frame.locator('section[data-page-type]').count()).toBe(3);
    expect(await frame.locator('#co-pay').isDisabled()).toBe(true);
    await transitionsDone(page);
    await page.screenshot({ path: 'test-results/sdk-preview.png' });
    // The frame says ready as the last step of its start: whatever it wrote is written by now.
    expect(await server.services.store.headPosition()).toBe(head);
    await page.close();
  });

  test('the hosted page works alone in a tab', async () => {
    const page = await chrome.context.newPage();
    await page.goto(`${server.url}/checkout/starter-plan?mode=test`);
    await pay(page.locator('html').page().mainFrame() as unknown as FrameLocator, '4242424242424242', 'solo@example.com');
    await page.locator('#page-thank_you:not([hidden])').waitFor();
    const id = await page.evaluate(() => document.body.dataset.sessionId!);
    expect((await serverSession(id)).session.status).toBe('completed');
    await page.screenshot({ path: 'test-results/hosted-standalone.png', fullPage: true });
    await page.close();
  });
});

describe('promo()', () => {
  test('the widget and the awaitable handle show state, tier and countdown; tier changes arrive as they happen', async () => {
    const openedAt = Date.now();
    const page = await openExample();
    await page.locator('#promo-widget[data-promo-state=active] .csdk-promo-countdown').waitFor();
    expect(await page.locator('#promo-widget .csdk-promo-name').textContent()).toBe('Spring sale');
    expect(await page.locator('#promo-widget .csdk-promo-tier').textContent()).toBe('Early bird');
    // The promo ends two hours after beforeAll seeded it, however long the tests before this one
    // took; the widget drew what it shows after the page opened (it redraws every second).
    const countdown = await page.locator('#promo-widget .csdk-promo-countdown').textContent();
    expectSecondsLeft(countdownSeconds(countdown), openedAt, Date.now());
    await page.locator('#promo-widget').screenshot({ path: 'test-results/sdk-promo-widget.png' });
    // data-service-apply-promo: the session is priced at the promo's current tier, and the page says which.
    await page.click('#buy-promo');
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    expect(await frame.locator('#co-total').textContent()).toBe('€29.00');
    await frame.locator('#co-promo:not([hidden])').waitFor();
    expect(await frame.locator('#co-promo').textContent()).toBe('Spring sale · Early bird');
    await transitionsDone(page);
    await page.screenshot({ path: 'test-results/sdk-modal-promo.png' });
    await page.evaluate(() => (window as unknown as Win).sdk.from('#buy-promo').close());
    const askedFrom = Date.now();
    const first = await page.evaluate(async () => {
      const w = window as unknown as Win;
      const p = w.sdk.promo('spring', { interval: 1000 });
      w.flows.promo = p;
      w.seen.promo = [];
      void (async () => {
        for await (const c of p.changes) w.seen.promo!.push(`${c.type}:${c.from?.name}->${c.to?.name}`);
      })();
      const s = await p;
      return { state: s.state, tier: s.current_tier.name, left: p.secondsRemaining() };
    });
    expect(first.state).toBe('active');
    expect(first.tier).toBe('Early bird');
    expectSecondsLeft(first.left, askedFrom, Date.now());
    await enrol(server, orgId, 'spring', 'first@example.com');
    // The handle polls every second; the bound is for a busy machine, where a poll can lag seconds.
    await page.waitForFunction(() => (window as unknown as Win).seen.promo!.length > 0, null, { timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as Win).seen.promo)).toEqual(['tier:Early bird->Regular']);
    expect(await page.evaluate(() => (window as unknown as Win).flows.promo.state.current_tier.name)).toBe('Regular');
    await page.evaluate(() => (window as unknown as Win).flows.promo.stop());
    // An unknown promo rejects the await; nothing throws in the page.
    const missing = await page.evaluate(() => (window as unknown as Win).sdk.promo('no-such-promo').then(() => 'found', (e: Error) => e.message));
    expect(missing).toMatch(/not found/i);
    await page.close();
  });

  test("the checkout names a promo only when it priced the session: one for other offers leaves the price and says nothing", async () => {
    await seedPromo(server, orgId, 'pro-only', ['pro-plan']);
    const page = await openExample('offer=starter-plan&promo=pro-only');
    // The checkout reads the promo for its label only, and decides to before it enables Pay.
    const promoReads: string[] = [];
    page.on('request', (r) => void (r.frame() !== page.mainFrame() && r.url().includes('/api/promos/') && promoReads.push(r.url())));
    await page.click('#buy-promo');
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    // Starter's own price: the promo's Early-bird tier (29.00) is for the pro plan only.
    expect(await frame.locator('#co-total').textContent()).toBe('$19.00');
    const id = await frame.locator('body').evaluate((b) => (b as HTMLElement).dataset.sessionId!);
    expect((await serverSession(id)).session).toMatchObject({ promo: 'pro-only', promo_tier: null, total: 1900 });
    expect(promoReads).toEqual([]);
    expect(await frame.locator('#co-promo').isHidden()).toBe(true);
    await page.close();
  });
});

describe('with the data of `commerce demo --json`', () => {
  test('the example page with no query uses the demo offer and promo; a buyer pays through the modal button', async () => {
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['bin/commerce.js', 'demo', '--json'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: server.dataDir, BASE_URL: server.url, LOG_LEVEL: 'silent' } }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const demo = JSON.parse(out) as { offer: { id: string; slug: string; uuid: string }; promo: { slug: string } };
    // The CLI wrote from another process; wait until this server's read models have it.
    await expect.poll(async () => (await server.fetch(`/api/checkout?offer=${demo.offer.uuid}`)).status, { timeout: 10_000 }).toBe(200);
    const page = await chrome.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}/examples/sdk`);
    expect(await page.getAttribute('#buy-modal', 'data-service-present')).toBe(demo.offer.slug);
    expect(await page.getAttribute('#promo-widget', 'data-service-promo')).toBe(demo.promo.slug);
    await page.locator('#promo-widget[data-promo-state]').waitFor();
    await page.click('#buy-modal');
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await pay(frame, '4242424242424242', 'demo-buyer@example.com');
    await frame.locator('#page-thank_you:not([hidden])').waitFor();
    const flow = await page.evaluate(() => (window as unknown as Win).sdk.from('#buy-modal').then((r: unknown) => r));
    expect(flow.status).toBe('complete');
    expect((await serverSession(flow.session.id)).session.invoice?.status).toBe('paid');
    // The offer answers to its Sqid and its UUID as well as its slug.
    for (const ref of [demo.offer.id, demo.offer.uuid]) expect((await server.fetch(`/checkout/${ref}?mode=preview`)).status).toBe(200);
    await page.close();
  }, 60_000);
});

test('no page error was thrown in any page', () => {
  expect(errors).toEqual([]);
});
