import { escapeHtml } from '../../../platform/http/index.ts';
import { BENEFITS_STYLE, benefitsSection, type DeliveredBenefit } from '../../delivery/index.ts';
import { formatDay, formatMoney } from '../../receipts/index.ts';
import { brandPalette } from '../domain/brandColor.ts';
import type { PortalSettings } from '../domain/portalSettings.ts';

/**
 * The seller as the portal names them: every page carries their logo and name (and address, in
 * the footer), in their brand colour (`#rrggbb`; null: the default blue).
 */
export type Seller = { name: string; address: string[]; logoUrl: string | null; brandColor?: string | null };

export type PortalSubscription = {
  id: string;
  product: string;
  status: string;
  entitled: boolean;
  mode: 'test' | 'live';
  amount: number;
  currency: string;
  interval: string;
  currentPeriodEnd: number;
  /** Set while a cancellation at period end is scheduled. */
  cancelAt: number | null;
  ended: boolean;
  card: { brand: string; last4: string } | null;
  /** The coupon on the next invoices, in words ("20% off until 30 April 2027"); null without one. */
  discount: string | null;
  /** Plans the buyer may move to (the seller allows switching, same product and currency). */
  plans: Array<{ id: string; label: string }>;
  invoices: PortalInvoice[];
};

/** `pricing`: its discount and tax in one line (receipts' pricingSummary), absent without either. */
export type PortalInvoice = { number: number; date: number; amount: number; currency: string; status: string; receipt: { page: string; pdf: string } | null; pricing?: string | null };

export type PortalPurchase = { id: string; name: string; total: number; currency: string; date: number; invoiceNumber: number | null; receipt: { page: string; pdf: string } | null; pricing?: string | null };

export type PortalView = {
  seller: Seller;
  portalPath: string;
  customer: { email: string; name: string | null };
  csrf: string;
  settings: PortalSettings;
  returnUrl: string | null;
  notice: { kind: 'ok' | 'error'; text: string } | null;
  subscriptions: PortalSubscription[];
  purchases: PortalPurchase[];
  /** The buyer's benefits in force: downloads and license keys (absent: none). */
  benefits?: DeliveredBenefit[];
};

const STYLE = `*{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,sans-serif;margin:0;color:#111;background:#f6f6f4;border-top:.35rem solid var(--brand)}
main,header,footer{max-width:40rem;margin:0 auto;padding:0 1rem}main{padding-bottom:2rem}header{padding-top:1rem;display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.5rem;margin-bottom:.5rem}
#seller{font-weight:700;font-size:1.1rem;margin:0;display:flex;align-items:center;gap:.5rem}#seller img{max-height:32px;width:auto}h1{font-size:1.4rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:0 0 .75rem}h3{font-size:1rem;margin:0 0 .25rem}
section{background:#fff;border:1px solid #d4d4d4;border-radius:.6rem;padding:1rem;margin-bottom:1rem}section>:first-child{margin-top:0}
article{border-top:1px solid #e5e5e5;padding-top:1rem;margin-top:1rem}h2+article{border-top:0;padding-top:0;margin-top:0}
ul.plain{list-style:none;margin:0;padding:0}ul.plain>li{padding:.6rem 0;border-top:1px solid #e5e5e5}ul.plain>li:first-child{border-top:0;padding-top:0}
.meta{color:#444;font-size:.95rem;margin:.15rem 0}.amount{font-variant-numeric:tabular-nums;font-weight:600}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input,select{width:100%;font:inherit;font-size:1.05rem;padding:.65rem .75rem;border:1px solid #767676;border-radius:.45rem;background:#fff;color:#111}
input:focus,select:focus{outline:3px solid var(--brand);outline-offset:1px}.row{display:grid;grid-template-columns:1fr 1fr;gap:.75rem}
button,.button{display:block;width:100%;min-height:44px;margin-top:.75rem;font:inherit;font-weight:600;padding:.7rem;border:1px solid var(--brand);border-radius:.45rem;background:var(--brand);color:var(--on-brand);cursor:pointer;text-align:center;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:var(--brand-link);border-color:var(--brand-link)}button:focus-visible,a:focus-visible{outline:3px solid #111;outline-offset:2px}
a{color:var(--brand-link)}.links a{display:inline-block;min-height:44px;padding:.6rem .75rem .6rem 0}
.error{background:#fef2f2;border-color:#b91c1c;color:#7f1d1d}.ok{background:#f0fdf4;border-color:#15803d;color:#14532d}
.badge{display:inline-block;font-size:.85rem;font-weight:600;padding:.05rem .5rem;border-radius:1rem;background:#e5e7eb;color:#111}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.signout{margin:0}.signout button{width:auto;min-height:44px;margin:0;padding:.4rem .8rem}address{font-style:normal;color:#444;font-size:.9rem;margin:0 0 2rem}.links{margin:.25rem 0 0}
@media (min-width:40rem){button,.button{width:auto;display:inline-block;padding:.6rem 1.2rem}}${BENEFITS_STYLE}`;

/** The seller's colours as CSS variables; brandPalette lets only `#rrggbb` through. */
const brandStyle = (seller: Seller) => {
  const { accent, onAccent, link } = brandPalette(seller.brandColor);
  return `:root{--brand:${accent};--on-brand:${onAccent};--brand-link:${link}}`;
};

const head = (title: string, nonce: string, seller: Seller) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${brandStyle(seller)}${STYLE}</style>
</head><body>`;

const footer = (seller: Seller) =>
  seller.address.length > 0 ? `<footer><address id="seller-address">${[seller.name, ...seller.address].map(escapeHtml).join('<br>')}</address></footer>` : '';

const page = (seller: Seller, title: string, nonce: string, body: string, headerExtra = '') =>
  `${head(`${title} · ${seller.name}`, nonce, seller)}<header><p id="seller">${seller.logoUrl ? `<img src="${escapeHtml(seller.logoUrl)}" alt="" height="32">` : ''}${escapeHtml(seller.name)}</p>${headerExtra}</header><main>${body}</main>${footer(seller)}</body></html>`;

/** `visa` → `Visa`: the brand as a buyer reads it on their card. */
const brand = (name: string) => (name.length > 0 ? name.charAt(0).toUpperCase() + name.slice(1) : name);

const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;

/** The sign-in form (and its answer, which says the same whether the address is known or not). */
export function renderSignIn(seller: Seller, action: string, state: 'form' | 'sent' | 'disabled' | 'invalid', nonce: string, email = ''): string {
  if (state === 'disabled') {
    return page(seller, 'Your account', nonce, `<h1>Your account</h1><section><p>Sign-in by email is not available for ${escapeHtml(seller.name)}. Please use the link in your purchase email, or contact the seller.</p></section>`);
  }
  if (state === 'sent') {
    return page(
      seller,
      'Check your email',
      nonce,
      `<h1>Check your email</h1><section class="ok" role="status" id="sent"><p>If ${escapeHtml(email)} has bought from ${escapeHtml(seller.name)}, we have sent a sign-in link to it. The link works once, for 15 minutes.</p></section>
<p><a href="${escapeHtml(action)}">Use another email address</a></p>`,
    );
  }
  const error = state === 'invalid' ? `<p class="error" id="error" role="alert">Enter the email address you bought with.</p>` : '';
  return page(
    seller,
    'Sign in',
    nonce,
    `<h1>Your purchases and subscriptions</h1><section><p>Enter the email address you used to buy from ${escapeHtml(seller.name)}. We will email you a link to sign in.</p>${error}
<form method="post" action="${escapeHtml(action)}" novalidate><label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"${state === 'invalid' ? ' aria-invalid="true" aria-describedby="error"' : ''}>
<button type="submit" id="send">Email me a sign-in link</button></form></section>`,
  );
}

/**
 * The page a link opens: a button that spends it. Mail scanners that fetch every link only see
 * this page, so they never use up the buyer's one-time link.
 */
export function renderOpen(seller: Seller, action: string, nonce: string): string {
  return page(seller, 'Sign in', nonce, `<h1>Sign in to your account</h1><section><p>Continue to see your purchases and subscriptions with ${escapeHtml(seller.name)}.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit" id="continue">Continue</button></form></section>`);
}

/** A page that only says something: an unknown portal, a refused form. */
export function renderMessage(seller: Seller, title: string, text: string, link: { href: string; label: string } | null, nonce: string): string {
  const more = link ? `<p><a class="button" id="next" href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : '';
  return page(seller, title, nonce, `<h1>${escapeHtml(title)}</h1><section><p>${escapeHtml(text)}</p>${more}</section>`);
}

export function renderGone(seller: Seller, signIn: string | null, nonce: string): string {
  const again = signIn ? `<p><a class="button" id="again" href="${escapeHtml(signIn)}">Get a new sign-in link</a></p>` : '<p>Please ask for a new link where you got this one.</p>';
  return page(seller, 'Link expired', nonce, `<h1>This link has expired</h1><section><p>Sign-in links work once, for a short time.</p>${again}</section>`);
}

const STATUS_WORDS: Record<string, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment due',
  unpaid: 'Unpaid',
  paused: 'Paused',
  canceled: 'Ended',
  incomplete: 'Incomplete',
  incomplete_expired: 'Ended',
};

function receiptLinks(receipt: { page: string; pdf: string } | null, what: string): string {
  if (!receipt) return '';
  return `<p class="links"><a href="${escapeHtml(receipt.page)}">Receipt<span class="visually-hidden"> for ${escapeHtml(what)}</span></a> <a href="${escapeHtml(receipt.pdf)}">Invoice PDF<span class="visually-hidden"> for ${escapeHtml(what)}</span></a></p>`;
}

function subscriptionCard(view: PortalView, s: PortalSubscription): string {
  const action = (what: string) => `${view.portalPath}/subscriptions/${encodeURIComponent(s.id)}/${what}`;
  const lines: string[] = [
    `<h3>${escapeHtml(s.product)} <span class="badge">${escapeHtml(STATUS_WORDS[s.status] ?? s.status)}</span></h3>`,
    `<p class="meta"><span class="amount">${escapeHtml(formatMoney(s.amount, s.currency))}</span> ${escapeHtml(s.interval)}</p>`,
  ];
  if (s.discount && !s.ended) lines.push(`<p class="meta" id="discount-${escapeHtml(s.id)}">${escapeHtml(s.discount)}</p>`);
  if (s.ended) lines.push('<p class="meta">This subscription has ended.</p>');
  else if (s.cancelAt !== null) lines.push(`<p class="meta" id="ends-${escapeHtml(s.id)}">Canceled: it stays active until ${escapeHtml(formatDay(s.cancelAt))}, and nothing more is charged.</p>`);
  else lines.push(`<p class="meta">Renews on ${escapeHtml(formatDay(s.currentPeriodEnd))}.</p>`);
  if (s.card) lines.push(`<p class="meta">Paid with ${escapeHtml(brand(s.card.brand))} ending in ${escapeHtml(s.card.last4)}.</p>`);
  if (!s.ended) {
    if (view.settings.subscription_cancel && s.cancelAt === null) {
      lines.push(`<form method="post" action="${escapeHtml(action('cancel'))}">${csrfField(view.csrf)}<button type="submit" class="secondary" id="cancel-${escapeHtml(s.id)}">Cancel at the end of the period</button></form>`);
    }
    if (view.settings.subscription_cancel && s.cancelAt !== null) {
      lines.push(`<form method="post" action="${escapeHtml(action('reactivate'))}">${csrfField(view.csrf)}<button type="submit" id="keep-${escapeHtml(s.id)}">Keep my subscription</button></form>`);
    }
    if (view.settings.payment_method_update) {
      lines.push(`<p><a class="button secondary" id="card-${escapeHtml(s.id)}" href="${escapeHtml(action('card'))}">Update card</a></p>`);
    }
    if (view.settings.subscription_update && s.plans.length > 0) {
      const options = s.plans.map((p) => `<option value="${escapeHtml(p.id)}">${escapeHtml(p.label)}</option>`).join('');
      lines.push(`<form method="post" action="${escapeHtml(action('change_plan'))}">${csrfField(view.csrf)}<label for="plan-${escapeHtml(s.id)}">Switch plan</label><select id="plan-${escapeHtml(s.id)}" name="plan">${options}</select><button type="submit" class="secondary" id="switch-${escapeHtml(s.id)}">Switch plan</button></form>`);
    }
  }
  if (s.invoices.length > 0) {
    const rows = s.invoices
      .map((i) => `<li><p class="meta">Invoice #${i.number}, ${escapeHtml(formatDay(i.date))}: <span class="amount">${escapeHtml(formatMoney(i.amount, i.currency))}</span> (${escapeHtml(i.status)})</p>${pricingLine(i.pricing)}${receiptLinks(i.receipt, `invoice ${i.number}`)}</li>`)
      .join('');
    lines.push(`<h4 class="meta">Invoices</h4><ul class="plain">${rows}</ul>`);
  }
  return `<article id="subscription-${escapeHtml(s.id)}" aria-label="${escapeHtml(s.product)}">${lines.join('\n')}</article>`;
}

const pricingLine = (pricing: string | null | undefined): string => (pricing ? `<p class="meta pricing">${escapeHtml(pricing)}</p>` : '');

/** The signed-in portal: subscriptions with what the seller lets the buyer do, then purchases with their receipts. */
export function renderPortal(view: PortalView, nonce: string): string {
  const notice = view.notice ? `<section class="${view.notice.kind}" id="notice" role="${view.notice.kind === 'error' ? 'alert' : 'status'}"><p>${escapeHtml(view.notice.text)}</p></section>` : '';
  const subscriptions = view.subscriptions.length > 0
    ? `<section aria-labelledby="subscriptions-heading"><h2 id="subscriptions-heading">Subscriptions</h2>${view.subscriptions.map((s) => subscriptionCard(view, s)).join('\n')}</section>`
    : '';
  const purchases = view.purchases.length > 0
    ? `<section aria-labelledby="purchases-heading"><h2 id="purchases-heading">Purchases</h2><ul class="plain">${view.purchases
        .map(
          (p) => `<li id="purchase-${escapeHtml(p.id)}"><h3>${escapeHtml(p.name)}</h3><p class="meta">${escapeHtml(formatDay(p.date))}${p.invoiceNumber !== null ? `, invoice #${p.invoiceNumber}` : ''}: <span class="amount">${escapeHtml(formatMoney(p.total, p.currency))}</span></p>${pricingLine(p.pricing)}${receiptLinks(p.receipt, p.invoiceNumber !== null ? `invoice ${p.invoiceNumber}` : p.name)}</li>`,
        )
        .join('')}</ul></section>`
    : '<section><h2>Purchases</h2><p>No purchases yet.</p></section>';
  const back = view.returnUrl ? `<p><a class="button secondary" id="return" href="${escapeHtml(view.returnUrl)}">Back to ${escapeHtml(view.seller.name)}</a></p>` : '';
  const signOut = `<form class="signout" method="post" action="${escapeHtml(view.portalPath)}/sign-out">${csrfField(view.csrf)}<button type="submit" class="secondary" id="sign-out">Sign out</button></form>`;
  return page(
    view.seller,
    'Your account',
    nonce,
    `<h1>Your account</h1><p class="meta" id="signed-in-as">Signed in as ${escapeHtml(view.customer.email)}</p>${notice}${benefitsSection(view.benefits ?? [], { heading: 'Downloads and license keys' })}${subscriptions}${purchases}${back}`,
    signOut,
  );
}

/**
 * A live subscription's card form's one script: asks this page's server for a SetupIntent, lets
 * Stripe.js take the card in its Payment Element and confirm it, then posts the form, whose answer
 * reads the outcome from Stripe. Card data never reaches this page's server.
 */
const LIVE_SCRIPT = `(function () {
  var form = document.getElementById('card-saved');
  var save = document.getElementById('new-card');
  var problem = document.getElementById('live-error');
  var stripe = null, elements = null;
  function fail(message) { problem.textContent = message; problem.hidden = false; save.disabled = false; }
  save.addEventListener('click', function () {
    save.disabled = true;
    problem.hidden = true;
    if (!elements) {
      fetch(form.getAttribute('data-setup'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrf: form.elements.csrf.value }) })
        .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
        .then(function (r) {
          if (!r.ok) return fail(r.j.message || 'The card form could not be opened.');
          if (!window.Stripe) return fail('The card form could not be loaded. Check your connection, then reload the page.');
          stripe = window.Stripe(r.j.publishable_key);
          elements = stripe.elements({ clientSecret: r.j.client_secret });
          elements.create('payment').mount('#card-element');
          document.getElementById('setup-intent').value = r.j.id;
          save.textContent = 'Save card';
          save.disabled = false;
        })
        .catch(function () { fail('The connection failed. Please try again.'); });
      return;
    }
    stripe.confirmSetup({ elements: elements, confirmParams: { return_url: location.href }, redirect: 'if_required' })
      .then(function (result) {
        if (result.error) return fail(result.error.message || 'The card could not be saved.');
        form.submit();
      })
      .catch(function () { fail('The connection failed. Please try again.'); });
  });
})();`;

/**
 * The card form of one subscription: typed into this page in test mode (the test provider's
 * cards); in live mode entered in Stripe's Payment Element (`live.jsUrl`: Stripe.js).
 */
export function renderCardForm(
  view: Pick<PortalView, 'seller' | 'portalPath' | 'csrf'>,
  s: Pick<PortalSubscription, 'id' | 'product' | 'card'>,
  error: string | null,
  nonce: string,
  live: { jsUrl: string } | null = null,
): string {
  const action = `${view.portalPath}/subscriptions/${encodeURIComponent(s.id)}/card`;
  const current = s.card ? `<p class="meta" id="current-card">Now: ${escapeHtml(brand(s.card.brand))} ending in ${escapeHtml(s.card.last4)}</p>` : '';
  const problem = error ? `<p class="error" id="error" role="alert">${escapeHtml(error)}</p>` : '';
  const back = `<p><a href="${escapeHtml(view.portalPath)}">Back to your account</a></p>`;
  if (live) {
    return page(
      view.seller,
      'Update card',
      nonce,
      `<h1>Update card</h1><section><h2>${escapeHtml(s.product)}</h2>${current}${problem}<p class="error" role="alert" id="live-error" hidden></p>
<div id="card-element"></div>
<form method="post" action="${escapeHtml(action)}" id="card-saved" data-setup="${escapeHtml(`${view.portalPath}/subscriptions/${encodeURIComponent(s.id)}/setup-intent`)}">${csrfField(view.csrf)}<input type="hidden" name="setup_intent" id="setup-intent"></form>
<button type="button" id="new-card">Enter a new card</button>${back}</section>
<script nonce="${nonce}" src="${escapeHtml(live.jsUrl)}"></script>
<script nonce="${nonce}">${LIVE_SCRIPT}</script>`,
    );
  }
  return page(
    view.seller,
    'Update card',
    nonce,
    `<h1>Update card</h1><section><h2>${escapeHtml(s.product)}</h2>${current}${problem}
<form method="post" action="${escapeHtml(action)}" autocomplete="off">${csrfField(view.csrf)}
<label for="number">Card number</label><input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required${error ? ' aria-describedby="error"' : ''}>
<div class="row"><div><label for="exp">Expiry (MM/YY)</label><input id="exp" name="exp" inputmode="numeric" autocomplete="cc-exp" required></div>
<div><label for="cvc">Security code</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required></div></div>
<button type="submit" id="save-card">Save card</button></form>
${back}</section>`,
  );
}
