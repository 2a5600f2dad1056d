import { escapeHtml } from '../../../../platform/http/index.ts';
import { formatDay, formatMoney, formatPeriod } from '../../../receipts/index.ts';

/** What the hosted card page shows of a subscription whose payment failed. */
export type BillingPageView = {
  sellerName: string;
  sellerAddress: string[];
  product: string;
  mode: 'test' | 'live';
  status: string;
  currency: string;
  /** The open invoice, when one is due. */
  due: { amount: number; period: { start: number; end: number } | null } | null;
  lastDecline: string | null;
  card: { brand: string; last4: string } | null;
  nextAttempt: number | null;
  currentPeriodEnd: number;
  /**
   * Live, with a connected Stripe account: Stripe.js, loaded from `jsUrl`, takes a new card in its
   * Payment Element; and when the bank asked for the buyer (`authenticate`, Stripe's
   * `authentication_required`) it confirms the open invoice's payment with the saved card.
   */
  stripe: { jsUrl: string; authenticate: boolean } | null;
};

export type BillingPageState =
  | { kind: 'form'; view: BillingPageView; error: string | null; formAction: string }
  | { kind: 'paid'; view: BillingPageView }
  | { kind: 'saved'; view: BillingPageView }
  | { kind: 'ended'; view: BillingPageView | null }
  | { kind: 'gone' }
  | { kind: 'refused' };

const STYLE = `*{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,sans-serif;margin:0;color:#111;background:#f6f6f4}
main{max-width:28rem;margin:0 auto;padding:1.25rem 1rem 3rem}header{margin-bottom:1rem}header p{margin:0;color:#555}
h1{font-size:1.35rem;margin:.25rem 0 1rem}section{background:#fff;border:1px solid #ddd;border-radius:.6rem;padding:1rem;margin-bottom:1rem}
dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem}dt{color:#555}dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input{width:100%;font:inherit;font-size:1.1rem;padding:.7rem .75rem;border:1px solid #999;border-radius:.45rem;background:#fff}
input:focus{outline:3px solid #2563eb55;border-color:#2563eb}.row{display:grid;grid-template-columns:1fr 1fr;gap:.75rem}
button{width:100%;margin-top:1.25rem;font:inherit;font-weight:600;font-size:1.05rem;padding:.85rem;border:0;border-radius:.45rem;background:#1d4ed8;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #111;outline-offset:2px}.error{background:#fef2f2;border-color:#fca5a5;color:#7f1d1d}.ok{background:#f0fdf4;border-color:#86efac;color:#14532d}
.note{color:#555;font-size:.9rem}address{font-style:normal;color:#555;font-size:.9rem}`;

const head = (title: string, nonce: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head><body><main>`;

const sellerHeader = (view: BillingPageView) =>
  `<header><p id="seller">${escapeHtml(view.sellerName || 'Your subscription')}</p></header>`;

const footer = (view: BillingPageView | null) =>
  view && view.sellerAddress.length > 0 ? `<address>${[view.sellerName, ...view.sellerAddress].map(escapeHtml).join('<br>')}</address>` : '';

function summary(view: BillingPageView): string {
  const rows: string[] = [`<dt>Subscription</dt><dd id="product">${escapeHtml(view.product)}</dd>`];
  if (view.due) {
    rows.push(`<dt>Amount due</dt><dd id="amount-due">${escapeHtml(formatMoney(view.due.amount, view.currency))}</dd>`);
    if (view.due.period) rows.push(`<dt>For</dt><dd id="period">${escapeHtml(formatPeriod(view.due.period))}</dd>`);
  }
  if (view.card) rows.push(`<dt>Card on file</dt><dd id="card">${escapeHtml(view.card.brand)} ending in ${escapeHtml(view.card.last4)}</dd>`);
  return `<section><dl>${rows.join('')}</dl></section>`;
}

function situation(view: BillingPageView): string {
  const lines: string[] = [];
  if (view.lastDecline) lines.push(`<p id="last-decline"><strong>The last payment failed:</strong> ${escapeHtml(view.lastDecline)}</p>`);
  if (view.status === 'unpaid') lines.push('<p>Your subscription is unpaid: it is kept, but without access until a payment succeeds.</p>');
  else if (view.nextAttempt !== null) {
    const unless = view.stripe?.authenticate ? 'Unless you confirm the payment here' : 'Unless you enter another card';
    lines.push(`<p>${unless}, the card on file is tried again on ${escapeHtml(formatDay(view.nextAttempt))}.</p>`);
  }
  return lines.length > 0 ? `<section class="error" role="status">${lines.join('')}</section>` : '';
}

/**
 * The live page's one script: asks for the invoice's PaymentIntent, lets Stripe.js run the bank's
 * check on the saved card, then posts the settle form, whose answer is the outcome Stripe records.
 */
const LIVE_SCRIPT = `(function () {
  var problem = document.getElementById('live-error');
  function fail(button, message) { problem.textContent = message; problem.hidden = false; button.disabled = false; }
  function post(path) {
    return fetch(location.pathname + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); });
  }
  function stripeOf(key) {
    if (!window.Stripe) throw new Error('The payment form could not be loaded. Check your connection, then reload the page.');
    return window.Stripe(key);
  }
  var confirm = document.getElementById('authenticate');
  if (confirm) confirm.addEventListener('click', function () {
    confirm.disabled = true;
    problem.hidden = true;
    post('/payment-intent')
      .then(function (r) {
        if (!r.ok) return fail(confirm, r.j.message || 'The payment could not be started.');
        return stripeOf(r.j.publishable_key).confirmCardPayment(r.j.client_secret).then(function (result) {
          if (result.error) return fail(confirm, result.error.message || 'The payment failed.');
          document.getElementById('settle').submit();
        });
      })
      .catch(function (e) { fail(confirm, (e && e.message) || 'The connection failed. Please try again.'); });
  });
  var save = document.getElementById('new-card');
  var stripe = null, elements = null;
  if (save) save.addEventListener('click', function () {
    save.disabled = true;
    problem.hidden = true;
    if (!elements) {
      post('/setup-intent')
        .then(function (r) {
          if (!r.ok) return fail(save, r.j.message || 'The card form could not be opened.');
          stripe = stripeOf(r.j.publishable_key);
          elements = stripe.elements({ clientSecret: r.j.client_secret });
          elements.create('payment').mount('#card-element');
          document.getElementById('setup-intent').value = r.j.id;
          save.textContent = save.dataset.saveLabel;
          save.disabled = false;
        })
        .catch(function (e) { fail(save, (e && e.message) || 'The connection failed. Please try again.'); });
      return;
    }
    stripe.confirmSetup({ elements: elements, confirmParams: { return_url: location.href }, redirect: 'if_required' })
      .then(function (result) {
        if (result.error) return fail(save, result.error.message || 'The card could not be saved.');
        document.getElementById('card-saved').submit();
      })
      .catch(function () { fail(save, 'The connection failed. Please try again.'); });
  });
})();`;

/** A live page: Stripe.js takes the new card (and runs the bank's check); card data never reaches this page's server. */
function liveForms(view: BillingPageView, action: string, problem: string, nonce: string): string {
  const amount = view.due ? formatMoney(view.due.amount, view.currency) : '';
  const confirm = view.stripe!.authenticate && view.due
    ? `<section id="confirm">
<p>Your bank asks you to confirm this payment. Press the button and follow your bank's steps; the card on file is charged ${escapeHtml(amount)}.</p>
<form method="post" action="${escapeHtml(`${action}/settle`)}" id="settle"></form>
<button type="button" id="authenticate">${escapeHtml(`Confirm payment of ${amount}`)}</button>
</section>`
    : '';
  const save = view.due ? `Save card and pay ${amount}` : 'Save card';
  return `${problem}<p class="error" role="alert" id="live-error" hidden></p>${confirm}<section id="replace">
<p>${confirm ? 'Or use another card:' : 'Enter the card to use for this subscription.'}</p>
<div id="card-element"></div>
<form method="post" action="${escapeHtml(`${action}/card`)}" id="card-saved"><input type="hidden" name="setup_intent" id="setup-intent"></form>
<button type="button" id="new-card" data-save-label="${escapeHtml(save)}">Enter a new card</button>
</section>
<script nonce="${nonce}" src="${escapeHtml(view.stripe!.jsUrl)}"></script>
<script nonce="${nonce}">${LIVE_SCRIPT}</script>`;
}

function cardForm(view: BillingPageView, action: string, error: string | null, nonce: string): string {
  const problem = error ? `<section class="error" role="alert" id="error"><p>${escapeHtml(error)}</p></section>` : '';
  if (view.mode !== 'test' && view.stripe) return liveForms(view, action, problem, nonce);
  if (view.mode !== 'test') {
    return `${problem}<section id="contact"><p>To change the card of this subscription, please contact ${escapeHtml(view.sellerName || 'the seller')}.</p></section>`;
  }
  const pay = view.due ? `Save card and pay ${formatMoney(view.due.amount, view.currency)}` : 'Save card';
  return `${problem}<form method="post" action="${escapeHtml(action)}" autocomplete="on" novalidate>
<section>
<label for="number">Card number</label>
<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" maxlength="23" required>
<div class="row"><div><label for="exp">Expiry (MM/YY)</label>
<input id="exp" name="exp" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" required></div>
<div><label for="cvc">Security code</label>
<input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="CVC" maxlength="4" required></div></div>
<button type="submit" id="submit">${escapeHtml(pay)}</button>
<p class="note">Test mode: no money moves. Card 4242 4242 4242 4242 pays; any future expiry and any three digits.</p>
</section>
</form>`;
}

/**
 * The hosted card page and its answers: a plain form, without any script, so the strictest policy
 * holds; only a live page's form carries Stripe.js and one script of its own.
 */
export function renderBillingPage(state: BillingPageState, nonce: string): string {
  switch (state.kind) {
    case 'gone':
      return `${head('Link no longer valid', nonce)}<h1>This link is no longer valid</h1>
<section><p>The payment it was sent for has been made, or the subscription has ended. If you still need to change your card, contact the seller.</p></section></main></body></html>`;
    case 'refused':
      return `${head('Not sent from this page', nonce)}<h1>Please use the form on this page</h1>
<section><p>The card form was sent from somewhere else, so nothing was done. Open the link from your email again.</p></section></main></body></html>`;
    case 'ended':
      return `${head('Subscription ended', nonce)}${state.view ? sellerHeader(state.view) : ''}<h1>This subscription has ended</h1>
<section id="outcome"><p>Nothing more will be charged. To subscribe again, contact the seller.</p></section>${footer(state.view)}</main></body></html>`;
    case 'paid':
      return `${head('Thank you', nonce)}${sellerHeader(state.view)}<h1>Thank you, your subscription is active</h1>
<section class="ok" id="outcome" role="status"><p>The payment succeeded${state.view.card ? ` with ${escapeHtml(state.view.card.brand)} ending in ${escapeHtml(state.view.card.last4)}` : ''}. It renews on ${escapeHtml(formatDay(state.view.currentPeriodEnd))}; a receipt is on its way by email.</p></section>
${summary({ ...state.view, due: null })}${footer(state.view)}</main></body></html>`;
    case 'saved':
      return `${head('Card saved', nonce)}${sellerHeader(state.view)}<h1>Your card is saved</h1>
<section class="ok" id="outcome" role="status"><p>Nothing is due now; the new card will be charged at the next renewal, on ${escapeHtml(formatDay(state.view.currentPeriodEnd))}.</p></section>
${footer(state.view)}</main></body></html>`;
    case 'form':
      return `${head(`Update your card: ${state.view.sellerName}`, nonce)}${sellerHeader(state.view)}<h1>Update your payment method</h1>
${summary(state.view)}${state.error ? '' : situation(state.view)}${cardForm(state.view, state.formAction, state.error, nonce)}${footer(state.view)}</main></body></html>`;
  }
}
