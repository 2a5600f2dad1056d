import { formatMoney } from '../../../../platform/domain/index.ts';
import { escapeHtml, jsonForScript } from '../../../../platform/http/index.ts';
import { recurringSentence, type RecurringTerms } from '../../domain/recurringTerms.ts';

export type CheckoutInit = {
  offer: { id: string; slug: string; name: string };
  theme?: { primary_color?: string } & Record<string, unknown>;
  pages?: Array<{ id?: string; type?: string; title?: string; blocks?: unknown[] } & Record<string, unknown>>;
  firstPage?: unknown;
  /** The offer's success_url and cancel_url: the full-page checkout (not a frame) goes there. */
  redirects?: { success_url?: string | undefined; cancel_url?: string | undefined };
};

/** What the page says beyond the offer's content: how often a recurring plan bills, and where the shop is. */
export type PageExtras = {
  /** The terms of a recurring plan (price per interval, trial, first renewal); null for a plan that does not renew. */
  recurring: RecurringTerms | null;
  /** What is charged today when the server knows it (no promotion on the link): the sentence starts with it. */
  today?: number | null;
  /** The currency of `today`: a preview, which makes no session, shows the price from these two. */
  currency?: string | null;
  shopUrl: string | null;
  /** A live page of an organization with Stripe: Stripe.js is loaded and its Payment Element takes the card. */
  stripeJsUrl?: string | null;
  /** Whom the buyer pays: the header shows their name and logo (the offer's theme logo wins). */
  seller?: { name: string; logoUrl: string | null } | null;
  /** The seller collects tax: the form asks for the country (and the postal code where a rate needs it). */
  tax?: { countries: Array<{ code: string; name: string }>; postalCodeCountries: string[] } | null;
};

export type PageParams = {
  offerRef: string;
  mode: 'test' | 'live' | 'preview' | null;
  frame: string | null;
  nonce: string | null;
  parentOrigin: string | null;
  promo: string | null;
  /** The session the page opens (`?session=`), or null: the page creates one. */
  session?: string | null;
};

const PREVIEW_PRICE = 'Price set when the session is created';
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const FONT = /^[A-Za-z0-9 ,_-]{1,120}$/;
const DEFAULT_COLOR = '#4f46e5';

/** WCAG relative luminance of a #rgb or #rrggbb color. */
function luminance(hex: string): number {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** White or near-black text, whichever reads better on the theme color. */
const onColor = (hex: string): string => (luminance(hex) > 0.4 ? '#0f172a' : '#ffffff');

/** The focus ring: the theme color when it stands out 3:1 against white (WCAG 1.4.11), else ink; a pale brand would hide it. */
const ringColor = (hex: string): string => (1.05 / (luminance(hex) + 0.05) >= 3 ? hex : '#0f172a');

const text = (b: Record<string, unknown>, ...keys: string[]): string | null => {
  for (const k of keys) if (typeof b[k] === 'string' && b[k]) return b[k] as string;
  return null;
};

/** Page blocks are the seller's content: rendered as text only (escaped), images only over https or from us. */
export function renderBlock(raw: unknown, preview = false, previewPrice: string | null = null): string {
  if (!raw || typeof raw !== 'object') return '';
  const b = raw as Record<string, unknown>;
  const type = String(b.type ?? '').toLowerCase();
  const body = text(b, 'text', 'content', 'body', 'description', 'html_text');
  const title = text(b, 'title', 'heading', 'label');
  switch (type) {
    case 'heading':
    case 'title':
    case 'headline':
      return `<h2 class="co-h">${escapeHtml(body ?? title)}</h2>`;
    case 'list':
    case 'features':
    case 'bullets':
    case 'benefits': {
      const items = (Array.isArray(b.items) ? b.items : Array.isArray(b.features) ? b.features : []) as unknown[];
      const li = items.map((i) => `<li>${escapeHtml(typeof i === 'string' ? i : text((i ?? {}) as Record<string, unknown>, 'text', 'title', 'name'))}</li>`).join('');
      return `${title ? `<h3 class="co-h3">${escapeHtml(title)}</h3>` : ''}<ul class="co-list">${li}</ul>`;
    }
    case 'image': {
      const src = text(b, 'src', 'url');
      if (!src || !/^(https:\/\/|\/(?!\/))/.test(src)) return '';
      return `<img class="co-img" src="${escapeHtml(src)}" alt="${escapeHtml(text(b, 'alt') ?? '')}">`;
    }
    case 'testimonial':
    case 'quote':
      return `<blockquote class="co-quote">${escapeHtml(body ?? '')}${text(b, 'author', 'name') ? `<cite>${escapeHtml(text(b, 'author', 'name'))}</cite>` : ''}</blockquote>`;
    case 'price':
      // Preview creates no session, so no price arrives to replace a placeholder: the server writes the plan's, when it knows it.
      if (preview) return `<p class="co-price-block">${previewPrice ? `<span class="co-price">${escapeHtml(previewPrice)}</span>` : `<span class="co-note">${PREVIEW_PRICE}</span>`}</p>`;
      return `<p class="co-price-block"><span class="co-price is-loading" data-co-price>&nbsp;</span></p>`;
    case 'guarantee':
    case 'badge':
      return `<p class="co-note">${escapeHtml(body ?? title)}</p>`;
    default:
      if (body) return `${title ? `<h3 class="co-h3">${escapeHtml(title)}</h3>` : ''}<p class="co-p">${escapeHtml(body)}</p>`;
      return title ? `<h3 class="co-h3">${escapeHtml(title)}</h3>` : '';
  }
}

function pageSection(page: NonNullable<CheckoutInit['pages']>[number], inner: string, hidden: boolean, preview: boolean, previewPrice: string | null = null): string {
  const type = String(page.type ?? 'checkout');
  const label = preview ? `<p class="co-preview-label">${escapeHtml(type.replace('_', ' '))} page</p>` : '';
  return `<section class="co-page" id="page-${escapeHtml(type)}" data-page-type="${escapeHtml(type)}"${hidden ? ' hidden' : ''}>${label}
${page.title ? `<h1 class="co-title">${escapeHtml(page.title)}</h1>` : ''}
${(page.blocks ?? []).map((b) => renderBlock(b, preview, previewPrice)).join('\n')}
${inner}</section>`;
}

const STYLE = `
:root{--brand:__BRAND__;--on-brand:__ON__;--ring:__RING__;--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--err:#b91c1c}
*{box-sizing:border-box}html,body{margin:0}
body{font:15px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg);-webkit-font-smoothing:antialiased}
body.framed{background:#fff}
.co{max-width:480px;margin:0 auto;padding:28px 24px 24px;background:#fff}
body:not(.framed) .co{margin:40px auto;border:1px solid var(--line);border-radius:14px;box-shadow:0 10px 30px rgba(15,23,42,.08)}
.co-head{display:flex;align-items:center;gap:10px;margin:-4px 0 18px}
.co-brand{display:flex;align-items:center;gap:10px;font-weight:600;flex:1;min-width:0}
.co-brand span:last-child{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.co-logo{height:28px;max-width:120px;object-fit:contain;flex:none}
.co-price-block{margin:10px 0}.co-price{font-size:20px;font-weight:700}
.co-mark{width:28px;height:28px;border-radius:8px;background:var(--brand);color:var(--on-brand);display:grid;place-items:center;font-size:14px;font-weight:700;flex:none}
.co-badge{font-size:12px;font-weight:600;color:#92400e;background:#fef3c7;border-radius:999px;padding:2px 10px;display:none}
body.is-test .co-badge,body.is-preview .co-badge{display:inline-block}
.co-close{border:0;background:transparent;color:var(--muted);font-size:22px;line-height:1;width:32px;height:32px;border-radius:8px;cursor:pointer}
.framed .co-close{position:fixed;top:12px;right:12px;z-index:2;background:rgba(255,255,255,.9)}body.framed:not(.frame-embedded) .co-head{padding-right:36px}
body.frame-bottom-sheet .co,body.frame-slideout .co{max-width:560px}
.co-close:hover{background:#f1f5f9;color:var(--ink)}
.co-title{font-size:22px;line-height:1.25;margin:0 0 8px}
.co-h{font-size:18px;margin:16px 0 6px}.co-h3{font-size:15px;margin:14px 0 4px}
.co-p{margin:0 0 10px;color:#334155}
.co-list{padding:0;margin:8px 0 12px;list-style:none}
.co-list li{padding-left:26px;position:relative;margin:6px 0;color:#334155}
.co-list li:before{content:"";position:absolute;left:4px;top:6px;width:10px;height:6px;border-left:2px solid var(--brand);border-bottom:2px solid var(--brand);transform:rotate(-45deg)}
.co-img{max-width:100%;border-radius:10px;margin:8px 0}
.co-quote{margin:12px 0;padding:10px 14px;border-left:3px solid var(--brand);background:#f8fafc;border-radius:0 8px 8px 0;color:#334155}
.co-quote cite{display:block;margin-top:4px;font-size:13px;color:var(--muted);font-style:normal}
.co-note{font-size:13px;color:var(--muted)}
.co-summary{display:flex;justify-content:space-between;align-items:baseline;border-top:1px solid var(--line);border-bottom:1px solid var(--line);padding:14px 0;margin:18px 0 6px}
.co-summary strong{font-size:22px;font-variant-numeric:tabular-nums}
.is-loading{color:transparent!important;background:linear-gradient(90deg,#eef2f7,#f8fafc,#eef2f7);background-size:200% 100%;animation:co-shimmer 1.2s infinite;border-radius:6px;min-width:96px;display:inline-block}
@keyframes co-shimmer{to{background-position:-200% 0}}
.co-lines{margin:18px 0 -12px;font-size:14px;color:#334155}.co-line{display:flex;justify-content:space-between;gap:12px;padding:3px 0;font-variant-numeric:tabular-nums}
.co-inline{display:flex;gap:8px}.co-inline input{flex:1;min-width:0;text-transform:uppercase}.co-inline input::placeholder{text-transform:none}
.co-apply{border:1px solid #cbd5e1;background:#fff;color:var(--ink);border-radius:8px;padding:0 14px;font:inherit;font-weight:600;cursor:pointer}.co-apply:disabled{opacity:.6;cursor:progress}
.co-ok{font-size:12.5px;color:#166534;margin:4px 0 0}
select{width:100%;font:inherit;color:var(--ink);padding:10px 12px;border:1px solid #cbd5e1;border-radius:8px;background:#fff}select:focus{border-color:var(--ring);outline:2px solid var(--ring);outline-offset:1px}select[aria-invalid=true]{border-color:var(--err)}
label.co-check{display:flex;align-items:center;gap:8px;font-weight:500;margin:14px 0 4px}label.co-check input{width:auto;margin:0}
.co-promo{font-size:13px;color:#166534;background:#dcfce7;border-radius:8px;padding:6px 10px;margin:8px 0 0}
form{margin-top:16px}
label{display:block;font-size:13px;font-weight:600;color:#334155;margin:12px 0 6px}
input{width:100%;font:inherit;color:var(--ink);padding:10px 12px;border:1px solid #cbd5e1;border-radius:8px;background:#fff;outline:none;transition:border-color .15s,box-shadow .15s}
input:focus{border-color:var(--ring);outline:2px solid var(--ring);outline-offset:1px}
input[aria-invalid=true]{border-color:var(--err)}
button:focus-visible{outline:2px solid var(--ring);outline-offset:2px}[tabindex="-1"]:focus{outline:none}
input:disabled,input[readonly]{background:#f8fafc}input:disabled{cursor:not-allowed}.is-refused #co-form{opacity:.55}
.co-card{border:1px solid #cbd5e1;border-radius:8px;overflow:hidden}.co-payment-element{margin-top:14px;min-height:40px}
.co-card input{border:0;border-radius:0;box-shadow:none}
.co-card input:focus{outline-offset:-2px}.co-card input[aria-invalid=true]{box-shadow:inset 0 0 0 1px var(--err);background:#fef2f2}
.co-card .co-row{display:flex;border-top:1px solid #cbd5e1}.co-card .co-row input+input{border-left:1px solid #cbd5e1}
.co-field-error{font-size:12.5px;color:var(--err);margin:4px 0 0}
.co-hint{font-size:12.5px;color:var(--muted);margin:8px 0 0;display:none}body.is-test .co-hint{display:block}
.co-hint code{font-family:ui-monospace,monospace;color:#334155;background:#f1f5f9;padding:1px 5px;border-radius:4px}
.co-error{margin:14px 0 0;padding:10px 12px;border-radius:8px;background:#fef2f2;border:1px solid #fecaca;color:var(--err);font-size:14px}
.co-pay{margin-top:18px;width:100%;border:0;border-radius:10px;padding:13px 16px;font:inherit;font-weight:600;font-size:16px;background:var(--brand);color:var(--on-brand);cursor:pointer;display:flex;align-items:center;justify-content:center;gap:10px;transition:filter .15s,opacity .15s}
.co-pay:hover:not(:disabled){filter:brightness(1.08)}.co-pay:disabled{opacity:.6;cursor:not-allowed}
.co-pay.is-busy{opacity:.85;cursor:progress}
.co-spin{display:none;width:16px;height:16px;border-radius:50%;border:2px solid currentColor;border-right-color:transparent;animation:co-rot .7s linear infinite}
.co-pay.is-busy .co-spin{display:inline-block}@keyframes co-rot{to{transform:rotate(360deg)}}
.co-secure{text-align:center;font-size:12px;color:var(--muted);margin:12px 0 0}
.co-done-mark{width:52px;height:52px;border-radius:50%;background:var(--brand);color:var(--on-brand);display:grid;place-items:center;font-size:26px;margin:8px auto 12px}
#page-thank_you{text-align:center}#page-thank_you .co-list{text-align:left}
.co-benefits{text-align:left;margin:20px 0 6px;border-top:1px solid var(--line);padding-top:6px}.co-benefits .co-h{font-size:16px;margin:10px 0 8px}
.co-benefits-list{list-style:none;margin:0;padding:0}.co-benefit{padding:10px 0;border-top:1px solid var(--line)}.co-benefit:first-child{border-top:0}
.co-benefit-title{font-weight:600;margin:0 0 6px}.co-files{list-style:none;margin:0;padding:0}.co-files li{display:flex;justify-content:space-between;gap:10px;align-items:baseline;margin:4px 0}
.co-download{color:var(--ring);font-weight:600;word-break:break-all}.co-size{font-size:13px;color:var(--muted);white-space:nowrap}
.co-key-row{display:flex;gap:8px;align-items:stretch}.co-key{flex:1;min-width:0;font:600 14px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f5f9;border:1px solid #cbd5e1;border-radius:8px;padding:8px 10px;overflow-wrap:anywhere;user-select:all}
.co-copy{border:1px solid #cbd5e1;background:#fff;color:var(--ink);border-radius:8px;padding:0 14px;font:inherit;font-weight:600;cursor:pointer}.co-key-note{font-size:13px;color:var(--muted);margin:4px 0 0}
.co-receipt{color:#334155;margin:6px 0 0}
.co-recurring{margin:4px 0 0;text-align:right}
a.co-shop{display:inline-block;text-decoration:none}
.co-secondary{margin-top:18px;border:1px solid var(--line);background:#fff;color:var(--ink);border-radius:10px;padding:10px 18px;font:inherit;font-weight:600;cursor:pointer}
.co-preview-label{display:inline-block;font-size:11px;font-weight:700;letter-spacing:.06em;text-transform:uppercase;color:var(--muted);border:1px dashed #cbd5e1;border-radius:6px;padding:2px 8px;margin:18px 0 8px}
body.is-preview .co-page[hidden]{display:block}body.is-preview .co-page+.co-page{border-top:1px dashed var(--line);margin-top:20px}
.co-missing{text-align:center;padding:40px 0}
.co-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:520px){body:not(.framed) .co{margin:0;border:0;border-radius:0;box-shadow:none;min-height:100vh}}
[hidden]{display:none!important}body.is-preview .co-page[hidden]{display:block!important}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important}}
`;

/** Live: Stripe's Payment Element takes the card in Stripe's own frame; the card never reaches this page's fields. */
const CARD_FIELDS = (preview: boolean, live: boolean) =>
  live
    ? `<div id="co-payment-element" class="co-payment-element" hidden></div>`
    : `<label for="co-number">Card</label>
  <div class="co-card">
    <input id="co-number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" aria-label="Card number"${preview ? ' disabled' : ''}>
    <div class="co-row"><input id="co-exp" name="exp" inputmode="numeric" autocomplete="cc-exp" placeholder="MM / YY" aria-label="Expiry date (MM / YY)"${preview ? ' disabled' : ''}><input id="co-cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="CVC" aria-label="Security code (CVC)"${preview ? ' disabled' : ''}></div>
  </div>
  <p class="co-field-error" id="co-number-error" hidden></p><p class="co-field-error" id="co-exp-error" hidden></p><p class="co-field-error" id="co-cvc-error" hidden></p>
  <p class="co-hint">Test mode: pay with <code>4242 4242 4242 4242</code>, any future date and any CVC. <code>4000 0000 0000 0002</code> is declined.</p>`;

/**
 * The server's words before the page's script writes them in the buyer's locale (a preview keeps
 * them): money as the script's default locale writes it, the date as "27 December 2026", in UTC.
 */
const serverMoney = (minor: number, currency: string): string => formatMoney(minor, currency, 'en');
const serverDate = (unix: number) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(unix * 1000);

/** The buyer's country and, for a business, its name and VAT number: what the seller's tax needs. */
const TAX_FIELDS = (tax: NonNullable<PageExtras['tax']>, preview: boolean) => `
  <label for="co-country">Country</label>
  <select id="co-country" name="country" autocomplete="country" required${preview ? ' disabled' : ''}><option value="">Choose your country</option>${tax.countries
    .map((c) => `<option value="${escapeHtml(c.code)}">${escapeHtml(c.name)}</option>`)
    .join('')}</select>
  <p class="co-field-error" id="co-country-error" hidden></p>
  <div id="co-postal-wrap" hidden><label for="co-postal">Postal code</label><input id="co-postal" name="postal_code" autocomplete="postal-code"><p class="co-field-error" id="co-postal-error" hidden></p></div>
  <label class="co-check"><input type="checkbox" id="co-business"${preview ? ' disabled' : ''}> Buying for a business</label>
  <div id="co-business-fields" hidden>
    <label for="co-business-name">Business name</label><input id="co-business-name" name="business_name" autocomplete="organization">
    <label for="co-tax-id">VAT number</label><input id="co-tax-id" name="tax_id" autocomplete="off" spellcheck="false" placeholder="DE123456789"><p class="co-field-error" id="co-tax-id-error" hidden></p>
  </div>`;

/** A promotion code: applied (or removed) at once, its price shown before the buyer pays. */
const DISCOUNT_FIELD = (preview: boolean) => `
  <label for="co-discount">Discount code</label>
  <div class="co-inline"><input id="co-discount" name="discount_code" autocomplete="off" autocapitalize="characters" spellcheck="false"${preview ? ' disabled' : ''}><button class="co-apply" id="co-discount-apply" type="button"${preview ? ' disabled' : ''}>Apply</button><button class="co-apply" id="co-discount-remove" type="button" hidden>Remove</button></div>
  <p class="co-field-error" id="co-discount-error" hidden></p><p class="co-ok" id="co-discount-ok" hidden></p>`;

const FORM = (preview: boolean, recurring: PageExtras['recurring'], today: number | null, live = false, previewPrice: string | null = null, tax: PageExtras['tax'] = null) => `
<div class="co-lines" id="co-lines" aria-live="polite" hidden><div class="co-line"><span>Subtotal</span><span id="co-subtotal"></span></div><div class="co-line" id="co-discount-line" hidden><span id="co-discount-label">Discount</span><span id="co-discount-amount"></span></div><div class="co-line" id="co-tax-line" hidden><span id="co-tax-label">VAT</span><span id="co-tax-amount"></span></div></div>
<div class="co-summary"><span>Total due today</span>${
  preview ? (previewPrice ? `<strong id="co-total">${escapeHtml(previewPrice)}</strong>` : `<span class="co-note">${PREVIEW_PRICE}</span>`) : '<strong id="co-total" class="is-loading">&nbsp;</strong>'
}</div>
${recurring ? `<p class="co-note co-recurring" id="co-recurring">${escapeHtml(recurringSentence(recurring, today, serverMoney, serverDate))}</p>` : ''}
<p class="co-promo" id="co-promo" hidden></p>
<form id="co-form" novalidate>
  <label for="co-email">Email</label>
  <input id="co-email" name="email" type="email" autocomplete="email" placeholder="you@example.com" required${preview ? ' disabled' : ''}>
  <p class="co-field-error" id="co-email-error" hidden></p>
  <label for="co-name">${live ? 'Name' : 'Name on card'}</label>
  <input id="co-name" name="name" autocomplete="${live ? 'name' : 'cc-name'}" placeholder="Jane Doe"${preview ? ' disabled' : ''}>
  ${tax ? TAX_FIELDS(tax, preview) : ''}
  ${DISCOUNT_FIELD(preview)}
  ${CARD_FIELDS(preview, live)}
  <div class="co-error" id="co-error" role="alert" hidden></div>
  <p class="co-sr" id="co-status" role="status"></p>
  <button class="co-pay" id="co-pay" type="submit" disabled><span class="co-spin" aria-hidden="true"></span><span class="co-pay-label">${preview ? 'Payments are off in preview' : 'Pay'}</span></button>
  <p class="co-secure">Payments are encrypted. Your card details are never stored.</p>
</form>`;

const THANKS = `<div class="co-done-mark" aria-hidden="true">✓</div>`;
/**
 * What the purchase delivered (files, license keys), filled by the page's script from the
 * session's benefits once they are granted; hidden for a product that delivers nothing.
 */
const BENEFITS = `<section class="co-benefits" id="co-benefits" aria-labelledby="co-benefits-heading" hidden><h2 class="co-h" id="co-benefits-heading">Your downloads and license keys</h2><p class="co-note" id="co-benefits-status" role="status"></p><ul class="co-benefits-list" id="co-benefits-list"></ul></section>`;
const THANKS_END = (framed: boolean, shopUrl: string | null) =>
  `<p class="co-receipt" id="co-receipt"></p><p class="co-receipt" id="co-invoice" hidden></p>${BENEFITS}<p class="co-receipt" id="co-receipt-page" hidden><a id="co-receipt-link" target="_blank" rel="noopener noreferrer">View your receipt</a></p>${
    // target=_top: in a frame the shop replaces the seller's page, not the frame.
    shopUrl ? `<p><a class="co-secondary co-shop" id="co-shop" href="${escapeHtml(shopUrl)}" target="_top">Back to the shop</a></p>` : ''
  }${framed ? '<button class="co-secondary" id="co-done" type="button">Done</button>' : ''}`;

type Look = { color: string; background?: string; text?: string; font?: string };

function shell(o: { title: string; nonce: string; look: Look; bodyClass: string; head: string; main: string; config: unknown; script: string; headScripts?: string }): string {
  const { look } = o;
  const extra = [
    look.background ? `body:not(.framed){--bg:${look.background}}` : '',
    look.text ? `:root{--ink:${look.text}}` : '',
    look.font ? `body{font-family:${look.font},ui-sans-serif,system-ui,sans-serif}` : '',
  ].join('');
  const style = STYLE.replace('__BRAND__', look.color).replace('__ON__', onColor(look.color)).replace('__RING__', ringColor(look.color)) + extra;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(o.title)}</title><style nonce="${o.nonce}">${style}</style>${o.headScripts ?? ''}</head>
<body class="${o.bodyClass}"><main class="co">${o.head}${o.main}</main>
<script type="application/json" id="co-config">${jsonForScript(o.config)}</script>
<script nonce="${o.nonce}">${o.script}</script></body></html>`;
}

/** The full-page checkout's way back when the offer has a cancel_url; the page script puts the session id in. */
const cancelLink = (cancelUrl: string | undefined): string =>
  cancelUrl ? `<p class="co-cancel"><a id="co-cancel" href="${escapeHtml(cancelUrl.split('{CHECKOUT_SESSION_ID}').join(''))}">Cancel and return</a></p>` : '';

/** The whole hosted checkout page: the offer's pages in its theme, the payment form, and the thank-you page. */
export function renderCheckoutPage(
  init: CheckoutInit,
  params: PageParams,
  cspNonce: string,
  script: string,
  extras: PageExtras = { recurring: null, shopUrl: null },
): string {
  const theme = (init.theme ?? {}) as Record<string, unknown>;
  const hex = (v: unknown) => (typeof v === 'string' && HEX.test(v) ? v : undefined);
  const color = hex(theme.primary_color) ?? DEFAULT_COLOR;
  const bg = hex(theme.background_color);
  const look: Look = {
    color,
    ...(bg ? { background: bg } : {}),
    ...(hex(theme.text_color) ? { text: hex(theme.text_color)! } : {}),
    ...(typeof theme.font_family === 'string' && FONT.test(theme.font_family) ? { font: theme.font_family } : {}),
  };
  const logo = typeof theme.logo_url === 'string' && /^https:\/\//.test(theme.logo_url) ? theme.logo_url : (extras.seller?.logoUrl ?? null);
  const sellerName = extras.seller?.name.trim() || init.offer.name;
  const buttonText = typeof theme.button_text === 'string' && theme.button_text.trim() ? theme.button_text.trim().slice(0, 40) : null;
  const preview = params.mode === 'preview';
  const framed = params.frame !== null;
  const closable = framed && params.frame !== 'embedded';
  const pages = init.pages ?? [];
  const checkout = pages.find((p) => p.type === 'checkout') ?? { type: 'checkout', title: init.offer.name, blocks: [] };
  const thanks = pages.find((p) => p.type === 'thank_you') ?? { type: 'thank_you', title: 'Thank you for your purchase', blocks: [] };
  const others = preview ? pages.filter((p) => p !== checkout && p !== thanks) : [];
  const head = `<header class="co-head"><div class="co-brand">${logo ? `<img class="co-logo" src="${escapeHtml(logo)}" alt="">` : `<span class="co-mark" aria-hidden="true">${escapeHtml(sellerName.charAt(0).toUpperCase())}</span>`}<span id="co-seller">${escapeHtml(sellerName)}</span></div>
<span class="co-badge">${preview ? 'Preview' : 'Test mode'}</span>${closable ? '<button class="co-close" id="co-close" type="button" aria-label="Close checkout">×</button>' : ''}</header>`;
  // A preview's price: the plan's, when the draft names a plan that exists.
  const previewPrice = preview && typeof extras.today === 'number' && extras.currency ? serverMoney(extras.today, extras.currency) : null;
  const main = [
    pageSection(
      checkout,
      FORM(preview, extras.recurring, extras.today ?? null, Boolean(extras.stripeJsUrl), previewPrice, extras.tax ?? null) + cancelLink(framed ? undefined : init.redirects?.cancel_url),
      false,
      preview,
      previewPrice,
    ),
    ...others.map((p) => pageSection(p, '', true, preview, previewPrice)),
    pageSection(thanks, '', true, preview).replace('>', `>${THANKS}`).replace('</section>', `${THANKS_END(framed, extras.shopUrl)}</section>`),
  ].join('\n');
  const bodyClass = [framed ? `framed frame-${params.frame}` : '', preview ? 'is-preview' : '', params.mode === 'test' ? 'is-test' : ''].filter(Boolean).join(' ');
  return shell({
    title: `Checkout · ${init.offer.name}`,
    nonce: cspNonce,
    look,
    bodyClass,
    head,
    main,
    // Stripe's documented way in: its script from its own address, before the page's script runs.
    ...(extras.stripeJsUrl ? { headScripts: `<script src="${escapeHtml(extras.stripeJsUrl)}" nonce="${cspNonce}"></script>` } : {}),
    config: {
      offer: params.offerRef,
      mode: params.mode,
      frame: params.frame,
      nonce: params.nonce,
      parentOrigin: params.parentOrigin,
      promo: params.promo,
      ...(params.session ? { session: params.session } : {}),
      buttonText,
      recurring: extras.recurring,
      live: Boolean(extras.stripeJsUrl),
      ...(extras.tax ? { tax: { postalCodeCountries: extras.tax.postalCodeCountries } } : {}),
      ...(framed ? {} : { successUrl: init.redirects?.success_url ?? null, cancelUrl: init.redirects?.cancel_url ?? null }),
    },
    script,
  });
}

export type PageError = { code: string; title: string; text: string; detail?: string };

/** The same look for an offer that is unknown or unpublished (or a page that cannot be shown); the script still lets a frame close. */
export function renderMissingPage(
  params: PageParams,
  cspNonce: string,
  script: string,
  message: PageError = { code: 'offer_not_found', title: 'This checkout is not available', text: 'The offer may have ended or the link is wrong.' },
): string {
  const closable = params.frame !== null && params.frame !== 'embedded';
  return shell({
    title: message.title,
    nonce: cspNonce,
    look: { color: DEFAULT_COLOR },
    bodyClass: params.frame ? 'framed' : '',
    head: `<header class="co-head"><div class="co-brand"></div>${closable ? '<button class="co-close" id="co-close" type="button" aria-label="Close checkout">×</button>' : ''}</header>`,
    main: `<section class="co-missing"><h1 class="co-title">${escapeHtml(message.title)}</h1><p class="co-p">${escapeHtml(message.text)}</p></section>`,
    config: {
      offer: params.offerRef,
      mode: 'preview',
      frame: params.frame,
      nonce: params.nonce,
      parentOrigin: params.parentOrigin,
      promo: null,
      // Handed to the SDK, whose flow resolves {status: 'error', error}; the detail is for the developer.
      error: { code: message.code, message: message.detail ?? `${message.title}: ${message.text}` },
    },
    script,
  });
}
