/**
 * The hosted checkout page's one script (inlined with the response's CSP nonce). It creates the
 * session, starts it when the buyer pays (the invoice is created then), pays with the card and the
 * email and name as they read then, and reports each step to the SDK over the MessageChannel port
 * handed over in the handshake.
 */
import { redirectAfterPayment, wireCancelLink, type RedirectConfig } from './redirects.ts';
import { PROTOCOL, isEmail, type FlowError, type FlowEvent, type InitMessage, type ParentMessage, type PortMessage, type SessionView } from '../protocol.ts';
// Pure, bundled into this script: one money format with the service (lint allows this file).
import { formatBytes } from '../../platform/domain/byteSize.ts';
import { formatMoney as formatMoneyIn } from '../../platform/domain/moneyFormat.ts';

type PageConfig = {
  offer: string;
  mode: 'test' | 'live' | 'preview' | null;
  frame: string | null;
  nonce: string | null;
  parentOrigin: string | null;
  promo: string | null;
  /** A session its creator made for this page (`?session=`): opened rather than a new one created. */
  session?: string;
  buttonText?: string | null;
  /** A recurring plan: the price, how often it is charged ("per month"), the trial and the first renewal (unix seconds). */
  recurring?: { per: string; amount: number; currency: string; trialDays?: number | null; renewsAt?: number | null } | null;
  /** Set on the error pages (unknown offer, bad link): handed to the SDK, whose flow then resolves with it. */
  error?: FlowError | null;
  /** A live page: Stripe.js is loaded and its Payment Element takes the card. */
  live?: boolean;
  /** The seller collects tax: the buyer's country is asked (with the postal code in these countries). */
  tax?: { postalCodeCountries: string[] } | null;
} & RedirectConfig;

/** The part of Stripe.js this page uses (https://docs.stripe.com/js): nothing else is called. */
type StripeElement = { mount(target: string | HTMLElement): void };
type StripeElements = { create(type: 'payment'): StripeElement };
type StripeConfirm = (options: {
  elements: StripeElements;
  confirmParams: { return_url: string };
  redirect: 'if_required';
}) => Promise<{ error?: { type?: string; code?: string; message?: string } }>;
type StripeJs = {
  elements(options: { clientSecret: string }): StripeElements;
  confirmPayment: StripeConfirm;
  /** A trial's SetupIntent: saves the card, charges nothing. */
  confirmSetup: StripeConfirm;
};
declare global {
  interface Window {
    Stripe?: (publishableKey: string) => StripeJs;
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;
const cfg = JSON.parse($('co-config')?.textContent ?? '{}') as PageConfig;
const framed = Boolean(cfg.frame && cfg.nonce && cfg.parentOrigin && window.parent !== window);

let port: MessagePort | null = null;
let session: SessionView | null = null;
let started = false;
let finished = false;
/** No checkout can be offered here; the buyer has been told why. */
let failed = false;
let busy = false;

const send = (msg: PortMessage) => port?.postMessage(msg);
const overlay = framed && cfg.frame !== 'embedded';

/**
 * In an overlay the dialog takes focus (so keys such as Escape reach it); an inline mount never takes it from the page.
 * The SDK asks once the overlay is ready, a port message that can arrive after the buyer has
 * already clicked into a field (or after an invalid submit focused the field to fix): focus
 * already on an element of this page stays where it is.
 */
function focusFirst(): void {
  if (finished) return;
  if (!overlay) return;
  if (document.activeElement && document.activeElement !== document.body) return;
  const field = ['co-email', 'co-name', 'co-number'].map((id) => $<HTMLInputElement>(id)).find((el) => el && !el.disabled && !el.readOnly && !el.value);
  (field ?? $('co-close'))?.focus();
}
const emit = (event: FlowEvent) => send({ type: 'event', event });

/** The buyer's locale, in the one money format the service uses everywhere (platform/domain/moneyFormat.ts). */
export const formatMoney = (minor: number, currency: string): string => formatMoneyIn(minor, currency, navigator.language);

/** A date as the buyer's locale writes it in full ("27 December 2026", "December 27, 2026"), in their time zone. */
export function formatDate(unix: number): string {
  const options = { day: 'numeric', month: 'long', year: 'numeric' } as const;
  try {
    return new Intl.DateTimeFormat(navigator.language || 'en', options).format(unix * 1000);
  } catch {
    return new Intl.DateTimeFormat('en', options).format(unix * 1000);
  }
}

/**
 * The terms of a recurring plan, worded as the server words them (modules/checkout/domain/
 * recurringTerms.ts; this script ships alone, so it cannot import it): what is charged today,
 * then the price per interval from the first renewal, or the trial first.
 */
function recurringText(terms: NonNullable<PageConfig['recurring']>, today: number): string {
  const from = terms.renewsAt == null ? '' : ` from ${formatDate(terms.renewsAt)}`;
  const then = `${formatMoney(terms.amount, terms.currency)} ${terms.per}${from}, until you cancel.`;
  if (terms.trialDays) return `Free for ${terms.trialDays} day${terms.trialDays === 1 ? '' : 's'}, then ${then}`;
  return `${formatMoney(today, terms.currency)} today, then ${then}`;
}

type ApiAnswer<T> = { ok: boolean; status: number; body: T & { message?: string; code?: string } };

/** Status 0: the request never got an answer (offline, connection reset), so it may or may not have taken effect. */
async function api<T>(path: string, body?: unknown): Promise<ApiAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      credentials: 'omit',
    });
  } catch {
    return { ok: false, status: 0, body: {} as ApiAnswer<T>['body'] };
  }
  const json = (await res.json().catch(() => ({ message: 'The checkout service did not answer properly.' }))) as ApiAnswer<T>['body'];
  return { ok: res.ok, status: res.status, body: json };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function handshake(): Promise<Pick<InitMessage, 'customer' | 'metadata' | 'discount_code'>> {
  if (!framed) return Promise.resolve({});
  return new Promise((resolve) => {
    const onMessage = (e: MessageEvent) => {
      const d = e.data as Partial<InitMessage> | null;
      if (e.source !== window.parent || e.origin !== cfg.parentOrigin) return;
      if (!d || d.protocol !== PROTOCOL || d.type !== 'init' || d.nonce !== cfg.nonce || !e.ports[0]) return;
      window.removeEventListener('message', onMessage);
      port = e.ports[0];
      port.onmessage = (m: MessageEvent<ParentMessage>) => {
        if (m.data?.type === 'dismiss') void dismiss();
        if (m.data?.type === 'focus') focusFirst();
      };
      resolve({
        ...(d.customer ? { customer: d.customer } : {}),
        ...(d.metadata ? { metadata: d.metadata } : {}),
        ...(typeof d.discount_code === 'string' ? { discount_code: d.discount_code } : {}),
      });
    };
    window.addEventListener('message', onMessage);
    window.parent.postMessage({ protocol: PROTOCOL, type: 'hello', nonce: cfg.nonce }, cfg.parentOrigin!);
    // Framed without the SDK (someone put the URL in an iframe by hand): carry on alone.
    setTimeout(() => resolve({}), 4000);
  });
}

function showError(message: string | null): void {
  const box = $('co-error');
  if (!box) return;
  box.textContent = message ?? '';
  box.hidden = !message;
}

function setBusy(on: boolean, label?: string): void {
  busy = on;
  send({ type: 'busy', busy: on });
  // Closing now would tell the seller "cancel" about a buyer whose card may be charged a moment later.
  $('co-close')?.toggleAttribute('disabled', on);
  const pay = $<HTMLButtonElement>('co-pay');
  if (!pay) return;
  // Busy is aria-disabled, not disabled: a disabled button drops the keyboard focus to <body>
  // mid-payment. A second submit is ignored by pay() while busy.
  pay.disabled = !session;
  pay.setAttribute('aria-disabled', String(on));
  pay.classList.toggle('is-busy', on);
  pay.setAttribute('aria-busy', String(on));
  const text = pay.querySelector('.co-pay-label');
  if (text && label) text.textContent = label;
  announce(on ? 'Processing your payment…' : '');
}

/** Said once by screen readers (role=status): the pay button's new label alone is not announced. */
function announce(message: string): void {
  const status = $('co-status');
  if (status) status.textContent = message;
}

function payLabel(): string {
  if (!session) return cfg.buttonText ?? 'Pay';
  // Live: the first press makes the payment and shows Stripe's form; the second pays.
  if (cfg.live && !elements) return 'Continue to payment';
  const price = formatMoney(session.total, session.currency);
  return cfg.buttonText ? `${cfg.buttonText} · ${price}` : `Pay ${price}`;
}

function fieldError(id: string, message: string | null): boolean {
  const input = $<HTMLInputElement>(id);
  const hint = $(`${id}-error`);
  input?.setAttribute('aria-invalid', String(Boolean(message)));
  if (message) input?.setAttribute('aria-describedby', `${id}-error`);
  else input?.removeAttribute('aria-describedby');
  if (hint) {
    hint.textContent = message ?? '';
    hint.hidden = !message;
  }
  return !message;
}

function readCard(): { card: { number: string; exp_month: number; exp_year: number; cvc: string }; email: string; name: string } | null {
  const email = ($<HTMLInputElement>('co-email')?.value ?? '').trim();
  const name = ($<HTMLInputElement>('co-name')?.value ?? '').trim();
  const number = ($<HTMLInputElement>('co-number')?.value ?? '').replace(/[\s-]/g, '');
  const exp = ($<HTMLInputElement>('co-exp')?.value ?? '').replace(/\s/g, '');
  const cvc = ($<HTMLInputElement>('co-cvc')?.value ?? '').trim();
  const m = /^(\d{1,2})\/?(\d{2}|\d{4})$/.exec(exp);
  const month = m ? Number(m[1]) : 0;
  const year = m ? (m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2])) : 0;
  const checks = [
    fieldError('co-email', isEmail(email) ? null : 'Enter a valid email address.'),
    fieldError('co-number', /^\d{12,19}$/.test(number) ? null : 'Enter your card number.'),
    fieldError('co-exp', m && month >= 1 && month <= 12 ? null : 'Enter the expiry as MM / YY.'),
    fieldError('co-cvc', /^\d{3,4}$/.test(cvc) ? null : 'Enter the 3 or 4 digit code.'),
  ];
  const ok = checks.every(Boolean);
  // To the first field to fix: a screen reader reads its error (aria-describedby) with it. A field
  // that has focus already (Enter in it) is not read again, so its error is announced instead.
  const first = ok ? null : document.querySelector<HTMLInputElement>('#co-form input[aria-invalid=true]');
  if (first && first === document.activeElement) announce($(`${first.id}-error`)?.textContent ?? '');
  first?.focus();
  return ok ? { card: { number, exp_month: month, exp_year: year, cvc }, email, name } : null;
}

const NETWORK_ERROR = 'We could not reach the payment service. Check your connection and try again.';

/** A refused start: true when it turned out paid or is shown at its field; else throws what the buyer is told. */
async function startRefused(r: ApiAnswer<unknown>): Promise<true> {
  if ((r.status === 409 && (await settle())) || fieldRefusal(r)) return true;
  throw new Error(r.status === 0 ? NETWORK_ERROR : (r.body.message ?? 'Could not start the checkout.'));
}

async function pay(event: Event): Promise<void> {
  event.preventDefault();
  if (busy || finished || !session) return;
  showError(null);
  if (cfg.live) return payLive();
  const details = readTaxDetails(true);
  const input = readCard();
  if (!input || details === false) return;
  setBusy(true, 'Processing…');
  // Sent with every pay too: a buyer who corrects the email after a declined card pays as the corrected one.
  const buyer = { email: input.email, ...(input.name ? { name: input.name } : {}), ...(details ? { customer_details: details } : {}) };
  try {
    if (!started) {
      const r = await startWith(buyer);
      if (!r.ok && (await startRefused(r))) return;
    }
    const r = await api<{ session: SessionView; invoice: unknown; payment?: { brand: string; last4: string } }>(
      `/api/checkout/sessions/${encodeURIComponent(session.id)}/pay`,
      { ...buyer, card: input.card },
    );
    if (fieldRefusal(r)) return;
    if (r.status === 402) {
      showError(r.body.code === 'card_declined' ? 'Your card was declined. Please try a different card.' : (r.body.message ?? 'The payment failed.'));
      // Back to the card number, which names the alert as its error: the buyer's next step is another card.
      const number = $('co-number');
      number?.setAttribute('aria-invalid', 'true');
      number?.setAttribute('aria-describedby', 'co-error');
      number?.focus();
      return;
    }
    // No answer, or "already completed" / "in progress": the charge may have gone through, so ask before blaming the card.
    if (!r.ok && (r.status === 0 || r.status === 409) && (await settle())) return;
    if (!r.ok) throw new Error(r.status === 0 ? NETWORK_ERROR : (r.body.message ?? 'The payment failed.'));
    complete(r.body.session, r.body.invoice, r.body.payment);
  } catch (error) {
    showError(error instanceof Error ? error.message : NETWORK_ERROR);
  } finally {
    setBusy(false, payLabel());
  }
}

/** The live page's Stripe.js objects, once the PaymentIntent is made (the buyer's first "Continue"). */
let stripe: StripeJs | null = null;
let elements: StripeElements | null = null;
/** A trial: the client secret is a SetupIntent's, confirmed with confirmSetup. */
let setupOnly = false;

function readBuyer(): { email: string; name?: string } | null {
  const email = ($<HTMLInputElement>('co-email')?.value ?? '').trim();
  const name = ($<HTMLInputElement>('co-name')?.value ?? '').trim();
  if (!fieldError('co-email', isEmail(email) ? null : 'Enter a valid email address.')) {
    $('co-email')?.focus();
    return null;
  }
  return { email, ...(name ? { name } : {}) };
}

/** Where Stripe sends the buyer back after a redirect-based method (or 3-D Secure by redirect): this page, naming the session. */
function returnUrl(): string {
  const url = new URL(location.href);
  url.searchParams.set('co_session', session!.id);
  return url.toString();
}

/**
 * Live: the first press starts the session and mounts Stripe's Payment Element with the
 * PaymentIntent's client secret; the next confirms with Stripe.js, which shows 3-D Secure or
 * redirects as the method needs. The outcome is then read by the server from Stripe (settle).
 */
async function payLive(): Promise<void> {
  const details = readTaxDetails(true);
  const buyer = readBuyer();
  if (!buyer || details === false) return;
  if (details) Object.assign(buyer, { customer_details: details });
  setBusy(true, 'Processing…');
  try {
    if (!elements) {
      if (!window.Stripe) throw new Error('The payment form could not be loaded. Check your connection, then reload the page.');
      const r = await api<{ session: SessionView; invoice: unknown; payment_intent: { client_secret: string; publishable_key: string; status: string } }>(
        `/api/checkout/sessions/${encodeURIComponent(session!.id)}/payment-intent`,
        buyer,
      );
      if (!r.ok && (await startRefused(r))) return;
      if (!started) emit({ type: 'start', session: r.body.session, invoice: r.body.invoice });
      started = true;
      session = r.body.session;
      showSessionPrice(session);
      // Paid already (in another tab, or before a reload): nothing to confirm, only to settle.
      if (r.body.payment_intent.status === 'succeeded' || r.body.payment_intent.status === 'processing') return await settleLive();
      stripe = window.Stripe(r.body.payment_intent.publishable_key);
      elements = stripe.elements({ clientSecret: r.body.payment_intent.client_secret });
      setupOnly = r.body.payment_intent.client_secret.startsWith('seti_');
      const box = $('co-payment-element');
      box?.removeAttribute('hidden');
      elements.create('payment').mount('#co-payment-element');
      return;
    }
    const options = { elements, confirmParams: { return_url: returnUrl() }, redirect: 'if_required' as const };
    const result = await (setupOnly ? stripe!.confirmSetup(options) : stripe!.confirmPayment(options));
    if (result.error) {
      // Stripe's own message: a decline, a field left empty, a failed authentication.
      showError(result.error.message ?? 'The payment failed.');
      return;
    }
    await settleLive();
  } catch (error) {
    showError(error instanceof Error ? error.message : NETWORK_ERROR);
  } finally {
    setBusy(false, payLabel());
  }
}

/** Asks the server to read the PaymentIntent from Stripe; a payment still processing gets a few more looks. */
async function settleLive(): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    if (attempt) await sleep(1000);
    const r = await api<{ session: SessionView; invoice?: unknown; payment?: { brand: string; last4: string } | null; status?: string }>(
      `/api/checkout/sessions/${encodeURIComponent(session!.id)}/payment-intent/settle`,
      {},
    );
    if (r.status === 200) return complete(r.body.session, r.body.invoice, r.body.payment ?? undefined);
    if (r.status === 402) return showError(r.body.message ?? 'The payment failed.');
    if (r.status === 202 && r.body.status === 'void') return showError('This checkout has expired. Please start again.');
    if (r.status !== 202 && r.status !== 0) return showError(r.body.message ?? 'The payment could not be confirmed.');
  }
  showError('Your payment is still being processed. You will receive a receipt by email once it completes.');
}

function complete(paid: SessionView, invoice: unknown, payment?: { brand: string; last4: string }): void {
  finished = true;
  session = paid;
  emit({ type: 'purchase', session: paid, invoice, ...(payment ? { payment } : {}), subscription: paid.subscription ?? null });
  emit({ type: 'complete', session: paid });
  showThankYou(payment, invoice ?? paid.invoice);
  if (!framed) redirectAfterPayment(cfg, paid.id);
}

/**
 * Re-reads the session after an answer that leaves the outcome unknown; a paid session shows the
 * thank-you page and reports the purchase. A charge still being processed gets a few seconds.
 */
async function settle(): Promise<boolean> {
  if (!session) return false;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt) await sleep(750);
    const r = await api<{ session: SessionView }>(`/api/checkout/sessions/${encodeURIComponent(session.id)}`);
    if (!r.ok) continue;
    if (r.body.session.status === 'completed') {
      complete(r.body.session, r.body.session.invoice);
      return true;
    }
    if (r.body.session.status !== 'open') return false;
  }
  return false;
}

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };
const brandName = (b: string) => BRANDS[b.toLowerCase()] ?? b.charAt(0).toUpperCase() + b.slice(1);

function showThankYou(payment?: { brand: string; last4: string }, invoice?: unknown): void {
  $('page-checkout')?.setAttribute('hidden', '');
  const thanks = $('page-thank_you');
  thanks?.removeAttribute('hidden');
  const receipt = $('co-receipt');
  if (receipt && session) {
    receipt.textContent = `${formatMoney(session.total, session.currency)} paid${payment ? ` with ${brandName(payment.brand)} •••• ${payment.last4}` : ''}.`;
  }
  // The number the buyer quotes to the seller (and finds on the receipt email).
  const number = (invoice as { number?: unknown } | null | undefined)?.number;
  const invoiceLine = $('co-invoice');
  if (invoiceLine && typeof number === 'number') {
    invoiceLine.textContent = `Invoice number ${number}`;
    invoiceLine.hidden = false;
  }
  // The receipt page, reached from here even when no email arrives (a new tab: a frame stays as it is).
  const invoiceId = (invoice as { id?: unknown } | null | undefined)?.id;
  const receiptLink = $<HTMLAnchorElement>('co-receipt-link');
  if (receiptLink && session && typeof invoiceId === 'string') {
    receiptLink.href = `/receipts/for-invoice/${encodeURIComponent(invoiceId)}?session=${encodeURIComponent(session.id)}`;
    $('co-receipt-page')?.removeAttribute('hidden');
  }
  if (session) void showBenefits(session.id);
  // Focus follows the page: to Done in a frame (described by the receipt), else to the thank-you heading,
  // so a screen reader says the purchase went through rather than nothing at all.
  const done = $('co-done');
  done?.setAttribute('aria-describedby', 'co-receipt');
  const target = done ?? thanks?.querySelector<HTMLElement>('h1') ?? thanks;
  if (target && !done) target.tabIndex = -1;
  target?.focus();
}

type DeliveredBenefit = {
  id: string;
  type: 'file' | 'license_key';
  description: string;
  files: Array<{ id: string; filename: string; size: number; download_url: string; expires_at: number }>;
  license_key: { key: string; status: string; activation_limit: number | null; activation_usage: number } | null;
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Copies a key: the Clipboard API, or (a frame without clipboard-write) a selection and execCommand. */
async function copyKey(key: string, source: HTMLElement, button: HTMLButtonElement): Promise<void> {
  let copied = false;
  try {
    await navigator.clipboard.writeText(key);
    copied = true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    copied = document.execCommand('copy');
  }
  button.textContent = copied ? 'Copied' : 'Select and copy';
  announce(copied ? 'License key copied.' : 'Select the key to copy it.');
  setTimeout(() => (button.textContent = 'Copy'), 2000);
}

/** The benefits as DOM nodes (text only: a seller's description or file name never becomes markup). */
function renderBenefits(list: HTMLElement, benefits: DeliveredBenefit[]): void {
  list.replaceChildren(
    ...benefits.map((b) => {
      const item = el('li', 'co-benefit');
      item.dataset.benefitId = b.id;
      item.append(el('p', 'co-benefit-title', b.description));
      if (b.files.length) {
        const files = el('ul', 'co-files');
        for (const f of b.files) {
          const row = el('li', '');
          const link = el('a', 'co-download', f.filename);
          link.href = f.download_url;
          link.download = f.filename;
          row.append(link, el('span', 'co-size', formatBytes(f.size)));
          files.append(row);
        }
        item.append(files);
      }
      if (b.license_key) {
        const row = el('div', 'co-key-row');
        const key = el('code', 'co-key', b.license_key.key);
        const copy = el('button', 'co-copy', 'Copy');
        copy.type = 'button';
        copy.setAttribute('aria-label', `Copy the license key for ${b.description}`);
        copy.addEventListener('click', () => void copyKey(b.license_key!.key, key, copy));
        row.append(key, copy);
        const limit = b.license_key.activation_limit;
        item.append(row, el('p', 'co-key-note', limit === null ? 'Use this key to activate the app.' : `Use this key to activate the app on up to ${limit} device${limit === 1 ? '' : 's'}.`));
      }
      return item;
    }),
  );
}

/**
 * What the purchase delivered, asked of the server until the grants are made (a subscriber makes
 * them a moment after the payment): files with fresh links, keys with a Copy button. Links last
 * 15 minutes, so a page left open asks for fresh ones before they lapse.
 */
async function showBenefits(sessionId: string): Promise<void> {
  const box = $('co-benefits');
  const list = $('co-benefits-list');
  const status = $('co-benefits-status');
  if (!box || !list || !status) return;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const r = await api<{ pending: boolean; benefits: DeliveredBenefit[] }>(`/api/checkout/sessions/${encodeURIComponent(sessionId)}/benefits`);
    if (r.ok) {
      const { pending, benefits } = r.body;
      if (benefits.length || pending) box.hidden = false;
      renderBenefits(list, benefits);
      document.body.dataset.benefits = pending ? 'pending' : 'ready';
      if (!pending) {
        status.textContent = '';
        status.hidden = true;
        const links = benefits.flatMap((b) => b.files.map((f) => f.expires_at));
        // Fresh links a minute before these lapse.
        if (links.length) setTimeout(() => void showBenefits(sessionId), Math.max(60, Math.min(...links) - Math.floor(Date.now() / 1000) - 60) * 1000);
        return;
      }
      status.hidden = false;
      status.textContent = 'Preparing your downloads and keys…';
    } else if (r.status !== 0 && r.status !== 429) {
      // Refused (too old, not this page's): the receipt email carries them.
      return;
    }
    if (Date.now() - started > 90_000) {
      box.hidden = false;
      status.hidden = false;
      status.textContent = 'Your downloads and keys are on their way: the receipt email links to them.';
      document.body.dataset.benefits = 'late';
      return;
    }
    await sleep(attempt < 10 ? 1000 : 3000);
  }
}

let dismissing = false;

async function dismiss(): Promise<void> {
  if (busy || dismissing) return; // the payment in flight decides; the buyer can close once it has
  if (finished || failed) {
    send({ type: 'close' });
    return;
  }
  if (!session) {
    emit({ type: 'cancel' });
    return;
  }
  dismissing = true;
  const r = await api<{ session: SessionView }>(`/api/checkout/sessions/${encodeURIComponent(session.id)}/cancel`, {});
  dismissing = false;
  // 409: the session is completed (paid in an answer this page never got): that is a purchase, not a cancel.
  if (r.status === 409) {
    await settle();
    send({ type: 'close' });
    return;
  }
  emit({ type: 'cancel', session: r.ok ? r.body.session : session });
}

function watchHeight(): void {
  const box = document.querySelector('.co');
  if (!box || !port) return;
  let last = 0;
  const measure = () => {
    const h = Math.ceil(box.getBoundingClientRect().height);
    if (h !== last) send({ type: 'resize', height: (last = h) });
  };
  new ResizeObserver(measure).observe(box);
  measure();
}

/** The email claim of a signed user token, read for display only: the server verifies the token. */
function tokenEmail(token: string): string | null {
  try {
    const part = token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0)))) as { email?: unknown };
    return typeof claims.email === 'string' ? claims.email : null;
  } catch {
    return null;
  }
}

/**
 * The session of this tab, kept across a reload (sessionStorage: this tab only, gone with it): a
 * buyer who reloads after paying sees the purchase, not a new empty checkout; one who reloads
 * before paying keeps the same session rather than opening another. A page in a frame belongs to
 * the SDK's flow, which starts afresh each time, so only the page opened by its link keeps one.
 */
const keptKey = () => `commerce-checkout:${cfg.offer}:${cfg.mode ?? ''}:${cfg.promo ?? ''}`;
function keptSession(): string | null {
  if (framed) return null;
  try {
    return sessionStorage.getItem(keptKey());
  } catch {
    return null; // storage off (a privacy setting): every load is a new checkout, as before
  }
}
function keepSession(id: string | null): void {
  if (framed) return;
  try {
    if (id) sessionStorage.setItem(keptKey(), id);
    else sessionStorage.removeItem(keptKey());
  } catch {
    // As above.
  }
}

/** The kept session when it can still be shown: completed (the thank-you page) or open (pay on). */
async function restoreSession(): Promise<SessionView | null> {
  const id = cfg.session ?? keptSession();
  if (!id) return null;
  const r = await api<{ session: SessionView }>(`/api/checkout/sessions/${encodeURIComponent(id)}`);
  if (r.ok && (r.body.session.status === 'completed' || r.body.session.status === 'open')) return r.body.session;
  keepSession(null);
  return null;
}

/** Where a refused field of a start or pay body is shown on the page. */
const FIELD_INPUTS: Record<string, string> = {
  discount_code: 'co-discount',
  'customer_details.address.country': 'co-country',
  'customer_details.address.postal_code': 'co-postal',
  'customer_details.tax_id': 'co-tax-id',
  'customer_details.business_name': 'co-tax-id',
};

/**
 * A refusal of what the buyer typed (a code, a country, a VAT number) shown at its field, or a
 * code used up by others meanwhile; false when the answer is of another kind.
 */
function fieldRefusal(r: ApiAnswer<unknown>): boolean {
  const errors = (r.body as { errors?: Record<string, string[]> }).errors;
  if (r.status === 409 && r.body.code === 'discount_code_exhausted') {
    fieldError('co-discount', r.body.message ?? 'This code has been used up.');
    $('co-discount')?.focus();
    return true;
  }
  if (r.status !== 422 || !errors) return false;
  const shown = Object.entries(errors).filter(([key, messages]) => FIELD_INPUTS[key] && $(FIELD_INPUTS[key]!) && fieldError(FIELD_INPUTS[key]!, messages[0] ?? r.body.message ?? '') === false);
  if (shown.length === 0) return false;
  if (errors['customer_details.address.postal_code']) $('co-postal-wrap')?.removeAttribute('hidden');
  $(FIELD_INPUTS[shown[0]![0]]!)?.focus();
  return true;
}

/**
 * What the tax needs, as the buyer typed it: undefined when the seller collects none, false when
 * something is missing (marked at its field when `mark`), else the body's customer_details.
 */
function readTaxDetails(mark: boolean): { address: { country: string; postal_code?: string }; business_name?: string; tax_id?: string } | undefined | false {
  if (!cfg.tax) return undefined;
  const country = $<HTMLSelectElement>('co-country')?.value ?? '';
  const needsPostal = cfg.tax.postalCodeCountries.includes(country);
  $('co-postal-wrap')?.toggleAttribute('hidden', !needsPostal);
  const postal = needsPostal ? ($<HTMLInputElement>('co-postal')?.value ?? '').trim() : '';
  const business = Boolean($<HTMLInputElement>('co-business')?.checked);
  const businessName = business ? ($<HTMLInputElement>('co-business-name')?.value ?? '').trim() : '';
  const taxId = business ? ($<HTMLInputElement>('co-tax-id')?.value ?? '').replace(/\s/g, '') : '';
  if (!country || (needsPostal && !postal)) {
    if (mark) {
      const missing = !country ? fieldError('co-country', 'Choose your country.') : fieldError('co-postal', 'Enter your postal code.');
      if (!missing) $(!country ? 'co-country' : 'co-postal')?.focus();
    }
    return false;
  }
  return { address: { country, ...(postal ? { postal_code: postal } : {}) }, ...(businessName ? { business_name: businessName } : {}), ...(taxId ? { tax_id: taxId } : {}) };
}

/** Starts (or restarts) the session with this body; the first start is reported to the SDK. */
async function startWith(body: Record<string, unknown>): Promise<ApiAnswer<{ session: SessionView; invoice: unknown }>> {
  const r = await api<{ session: SessionView; invoice: unknown }>(`/api/checkout/sessions/${encodeURIComponent(session!.id)}/start`, body);
  if (!r.ok) return r;
  const before = session?.total;
  session = r.body.session;
  if (!started) emit({ type: 'start', session, invoice: r.body.invoice });
  started = true;
  showSessionPrice(session);
  // A live payment made for the old price is no longer the one to confirm: the next press makes one for this price.
  if (cfg.live && elements && before !== session.total) {
    elements = null;
    const box = $('co-payment-element');
    if (box) {
      box.replaceChildren();
      box.hidden = true;
    }
  }
  // The new price on the pay button; a payment in flight keeps its busy state (it sets the label after).
  if (!busy) setBusy(false, payLabel());
  return r;
}

let pricing = false;

/** Applies a code (a string) or removes it (null) before payment; a refusal is said at the field and changes nothing. */
async function applyCode(code: string | null): Promise<void> {
  if (!session || finished || busy || pricing) return;
  if (code !== null && !code) {
    fieldError('co-discount', 'Enter a code.');
    return;
  }
  pricing = true;
  const buttons = [$<HTMLButtonElement>('co-discount-apply'), $<HTMLButtonElement>('co-discount-remove')];
  for (const b of buttons) if (b) b.disabled = true;
  try {
    const r = await startWith({ discount_code: code });
    if (!r.ok) {
      if (!fieldRefusal(r)) fieldError('co-discount', r.status === 0 ? NETWORK_ERROR : (r.body.message ?? 'This code cannot be applied.'));
      return;
    }
    fieldError('co-discount', null);
    if (code !== null) announce(`Code ${code.toUpperCase()} applied.`);
  } finally {
    pricing = false;
    for (const b of buttons) if (b) b.disabled = false;
  }
}

/** Sends the country (and business details) once complete, so the summary shows the tax before payment. */
async function sendTaxDetails(): Promise<void> {
  const details = readTaxDetails(false);
  if (!session || finished || busy || !details) return;
  for (const id of ['co-country', 'co-postal', 'co-tax-id']) fieldError(id, null);
  const r = await startWith({ customer_details: details });
  if (!r.ok && !fieldRefusal(r)) showError(r.status === 0 ? NETWORK_ERROR : (r.body.message ?? 'The tax could not be calculated.'));
}

/** The summary above the total: subtotal, the discount with its code, the tax (its rate, or the reverse charge). */
function showSummary(shown: SessionView): void {
  const details = shown.total_details;
  const discount = shown.discounts?.[0] ?? null;
  const tax = details?.breakdown?.taxes[0] ?? null;
  const money = (minor: number) => formatMoney(minor, shown.currency);
  const set = (id: string, text: string) => {
    const el = $(id);
    if (el) el.textContent = text;
  };
  set('co-subtotal', money(shown.amount_subtotal ?? shown.total));
  $('co-discount-line')?.toggleAttribute('hidden', !discount);
  if (discount) {
    set('co-discount-label', `Discount${discount.promotion_code ? ` (${discount.promotion_code.code})` : discount.coupon.name ? ` (${discount.coupon.name})` : ''}`);
    set('co-discount-amount', `−${money(details?.amount_discount ?? 0)}`);
  }
  $('co-tax-line')?.toggleAttribute('hidden', !tax);
  if (tax) {
    const reverse = tax.taxability_reason === 'reverse_charge';
    set('co-tax-label', reverse ? 'Reverse charge' : `${tax.tax_rate?.display_name ?? 'VAT'} ${tax.percentage}%${tax.inclusive ? ' (included)' : ''}`);
    set('co-tax-amount', money(tax.amount));
  }
  $('co-lines')?.toggleAttribute('hidden', !discount && !tax);
  // A session opened again (a reload, its link) shows what the buyer gave the tax, in fields left empty.
  const given = shown.customer_details;
  const country = $<HTMLSelectElement>('co-country');
  if (given?.address && country && !country.value) {
    country.value = given.address.country;
    const postal = $<HTMLInputElement>('co-postal');
    if (postal && given.address.postal_code) postal.value = given.address.postal_code;
    $('co-postal-wrap')?.toggleAttribute('hidden', !cfg.tax?.postalCodeCountries.includes(given.address.country));
    if (given.business_name || given.tax_id) {
      const business = $<HTMLInputElement>('co-business');
      if (business) business.checked = true;
      $('co-business-fields')?.removeAttribute('hidden');
      const name = $<HTMLInputElement>('co-business-name');
      if (name && given.business_name) name.value = given.business_name;
      const taxId = $<HTMLInputElement>('co-tax-id');
      if (taxId && given.tax_id) taxId.value = given.tax_id.value;
    }
  }
  // The code field says which code is applied, and offers to remove it.
  const code = discount?.promotion_code?.code ?? null;
  const input = $<HTMLInputElement>('co-discount');
  const ok = $('co-discount-ok');
  if (input && code) input.value = code;
  if (input) input.readOnly = Boolean(code);
  $('co-discount-apply')?.toggleAttribute('hidden', Boolean(code));
  $('co-discount-remove')?.toggleAttribute('hidden', !code);
  if (ok) {
    ok.textContent = code ? `${code} applied: ${money(details?.amount_discount ?? 0)} off.` : '';
    ok.hidden = !code;
  }
}

/** Shows the session's price: the total due, and for a recurring plan its terms (trial, price per interval, first renewal). */
function showSessionPrice(shown: SessionView): void {
  showSummary(shown);
  showPrice(formatMoney(shown.total, shown.currency));
  const recurring = $('co-recurring');
  if (recurring && cfg.recurring) recurring.textContent = recurringText(cfg.recurring, shown.total);
}

/** What the buyer is told when the session is refused; the seller's code gets the server's own code and message. */
const REFUSALS: Record<string, string> = {
  network_error: 'We could not reach the checkout service. Check your connection, then reload the page.',
  too_many_attempts: 'Too many attempts. Please wait a moment, then reload the page.',
  invalid_customer_token: 'Your sign-in has expired. Please sign in again, then reopen the checkout.',
  live_mode_unavailable: 'This checkout is not taking payments yet.',
  not_found: 'This offer is no longer available.',
  session_unavailable: 'This checkout has expired. Please go back to the shop and try again.',
};

/** No checkout here: the page is shown (it tells the buyer why) and the SDK's flow ends with `error`. */
function reportFailure(error: FlowError): void {
  failed = true;
  send({ type: 'ready', session: null });
  send({ type: 'error', error });
}

/** The total and every price block of the page, in place of their loading placeholders. */
function showPrice(text: string): void {
  for (const el of document.querySelectorAll('#co-total, [data-co-price]')) {
    el.textContent = text;
    el.classList.remove('is-loading');
  }
}

/** The session was refused: a finished page (form off, no placeholder price) that says so, and the error to the SDK. */
function refuse(r: ApiAnswer<unknown>): void {
  const code = r.status === 0 ? 'network_error' : (r.body.code ?? `http_${r.status}`);
  showError(REFUSALS[code] ?? 'This checkout cannot be opened right now. Please contact the seller.');
  // Above the form the buyer cannot use, where it is seen without scrolling.
  const box = $('co-error');
  if (box) $('co-form')?.before(box);
  document.body.classList.add('is-refused');
  for (const el of document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLButtonElement>('#co-form input, #co-form select, #co-form button')) el.disabled = true;
  showPrice('—');
  reportFailure({ code, message: r.body.message ?? 'The checkout service could not be reached.' });
}

/**
 * Names the promo only when it priced this session (its tier is the session's): a promo that
 * prices other offers, or has no tier in force, is recorded but leaves the offer's price, and a
 * label would promise the buyer a price they are not charged.
 */
async function showPromo(priced: SessionView): Promise<void> {
  if (!cfg.promo || !priced.promo_tier) return;
  const r = await api<{ name: string }>(`/api/promos/${encodeURIComponent(cfg.promo)}`);
  const el = $('co-promo');
  if (!el) return;
  el.textContent = r.ok ? `${r.body.name} · ${priced.promo_tier}` : priced.promo_tier;
  el.hidden = false;
}

async function main(): Promise<void> {
  $('co-form')?.addEventListener('submit', (e) => void pay(e));
  $('co-close')?.addEventListener('click', () => void dismiss());
  $('co-done')?.addEventListener('click', () => send({ type: 'close' }));
  wireCancelLink(cfg, () => session?.id ?? null);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && framed && cfg.frame !== 'embedded') void dismiss();
  });
  const codeInput = $<HTMLInputElement>('co-discount');
  $('co-discount-apply')?.addEventListener('click', () => void applyCode((codeInput?.value ?? '').trim()));
  $('co-discount-remove')?.addEventListener('click', () => {
    if (codeInput) codeInput.value = '';
    void applyCode(null);
  });
  // Enter in the code field applies it; it must not pay.
  codeInput?.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (!codeInput.readOnly) void applyCode(codeInput.value.trim());
  });
  codeInput?.addEventListener('input', () => fieldError('co-discount', null));
  $('co-country')?.addEventListener('change', () => {
    fieldError('co-country', null);
    void sendTaxDetails();
  });
  $('co-business')?.addEventListener('change', (e) => {
    $('co-business-fields')?.toggleAttribute('hidden', !(e.target as HTMLInputElement).checked);
    void sendTaxDetails();
  });
  for (const id of ['co-postal', 'co-business-name', 'co-tax-id']) $(id)?.addEventListener('change', () => void sendTaxDetails());
  const number = $<HTMLInputElement>('co-number');
  number?.addEventListener('input', () => {
    number.removeAttribute('aria-invalid');
    if (number.getAttribute('aria-describedby') === 'co-error') number.removeAttribute('aria-describedby');
    const digits = number.value.replace(/\D/g, '').slice(0, 19);
    number.value = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
  });
  const exp = $<HTMLInputElement>('co-exp');
  exp?.addEventListener('input', () => {
    const d = exp.value.replace(/\D/g, '').slice(0, 4);
    exp.value = d.length > 2 ? `${d.slice(0, 2)} / ${d.slice(2)}` : d;
  });

  const init = await handshake();
  watchHeight();
  if (cfg.error) return reportFailure(cfg.error);
  if (cfg.mode === 'preview') {
    send({ type: 'ready', session: null });
    return;
  }
  // A signed identity's email is the buyer's, verified by the server: shown, not editable.
  const signed = init.customer?.token ? tokenEmail(init.customer.token) : null;
  const email = signed ?? init.customer?.email;
  const emailInput = $<HTMLInputElement>('co-email');
  if (email && emailInput && (signed || !emailInput.value)) {
    emailInput.value = email;
    emailInput.readOnly = Boolean(signed);
  }
  // Back from a redirect of Stripe's (a bank page, 3-D Secure by redirect): settle that session.
  const returned = cfg.live ? new URLSearchParams(location.search).get('co_session') : null;
  if (returned) {
    const r = await api<{ session: SessionView }>(`/api/checkout/sessions/${encodeURIComponent(returned)}`);
    if (r.ok) {
      session = r.body.session;
      started = true;
      showSessionPrice(session);
      document.body.dataset.sessionId = session.id;
      send({ type: 'ready', session });
      if (session.status === 'completed') {
        finished = true;
        showThankYou(undefined, session.invoice);
        return;
      }
      setBusy(true, 'Processing…');
      await settleLive();
      setBusy(false, payLabel());
      return;
    }
  }
  const kept = await restoreSession();
  // A session made for this page that has expired: no other session in its place.
  if (!kept && cfg.session) return refuse({ ok: false, status: 410, body: { code: 'session_unavailable', message: 'The checkout session has expired.' } });
  if (kept) {
    finished = kept.status === 'completed';
    // Started before the reload when it has an invoice; a start again would return the same one anyway.
    started = Boolean(kept.invoice);
    return ready(kept);
  }
  const create = (code: string | undefined) =>
    api<{ session: SessionView }>('/api/checkout/sessions', {
      offer: cfg.offer,
      ...(cfg.mode ? { mode: cfg.mode } : {}),
      ...(cfg.promo ? { promo: cfg.promo } : {}),
      ...(init.customer ? { customer: init.customer } : {}),
      ...(init.metadata ? { metadata: init.metadata } : {}),
      ...(code ? { discount_code: code } : {}),
    });
  let r = await create(init.discount_code);
  // The shop's code cannot apply (expired, used up): the checkout opens at the full price and says why at the field.
  if (!r.ok && init.discount_code && r.status === 422 && r.body.code?.startsWith('discount_code')) {
    const refusal = r.body.message ?? 'This code cannot be applied.';
    r = await create(undefined);
    if (codeInput) codeInput.value = init.discount_code;
    fieldError('co-discount', refusal);
  }
  if (!r.ok) return refuse(r);
  keepSession(r.body.session.id);
  ready(r.body.session);
}

/** Shows the session (the thank-you page once paid) and tells the SDK the page is ready. */
function ready(shown: SessionView): void {
  session = shown;
  showSessionPrice(shown);
  if (shown.mode === 'test') document.body.classList.add('is-test');
  document.body.dataset.sessionId = shown.id;
  if (finished) showThankYou(undefined, shown.invoice);
  else {
    void showPromo(shown);
    setBusy(false, payLabel());
  }
  send({ type: 'ready', session: shown });
}

void main();
