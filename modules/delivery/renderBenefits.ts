import { formatBytes } from '../../platform/domain/index.ts';
import { escapeHtml } from '../../platform/http/index.ts';
import type { DeliveredBenefit, DeliveredKey } from './purchaseBenefits.ts';

const STATUS_WORDS: Record<string, string> = { active: 'Active', inactive: 'Not activated yet', expired: 'Expired', disabled: 'Disabled' };

/** `Active · 1 of 3 activations`: a key's standing. */
export function keyStanding(key: Pick<DeliveredKey, 'status' | 'activation_limit' | 'activation_usage'>): string {
  const activations = key.activation_limit === null ? `${key.activation_usage} activation${key.activation_usage === 1 ? '' : 's'}` : `${key.activation_usage} of ${key.activation_limit} activations`;
  return `${STATUS_WORDS[key.status] ?? key.status} · ${activations}`;
}

/**
 * The buyer's benefits as a section of a server-rendered page (the receipt page, the portal):
 * each file a link minted for this view (15 minutes: the page itself is the lasting way back) and
 * each key in plain, selectable. No script: these pages run none. Everything is escaped.
 */
export function benefitsSection(benefits: readonly DeliveredBenefit[], options: { pending?: boolean; heading?: string } = {}): string {
  if (benefits.length === 0 && !options.pending) return '';
  const items = benefits
    .map((b) => {
      const files = b.files.length
        ? `<ul class="benefit-files">${b.files
            .map((f) => `<li><a class="download" href="${escapeHtml(f.download_url)}" download="${escapeHtml(f.filename)}">${escapeHtml(f.filename)}</a> <span class="note">${escapeHtml(formatBytes(f.size))}</span></li>`)
            .join('')}</ul>`
        : '';
      const key = b.license_key
        ? `<p class="license-key"><code>${escapeHtml(b.license_key.key)}</code></p><p class="note key-standing">${escapeHtml(keyStanding(b.license_key))}</p>`
        : b.type === 'license_key'
          ? '<p class="note">Your key is being issued. Reload this page in a moment.</p>'
          : '';
      return `<li class="benefit" id="benefit-${escapeHtml(b.id)}"><h3>${escapeHtml(b.description)}</h3>${files}${key}</li>`;
    })
    .join('');
  const hasFiles = benefits.some((b) => b.files.length > 0);
  const pending = options.pending ? '<p class="note" id="benefits-pending">More is being prepared for you. Reload this page in a moment.</p>' : '';
  const linkNote = hasFiles ? '<p class="note">Download links work for 15 minutes; this page makes new ones each time you open it.</p>' : '';
  return `<section id="benefits" aria-labelledby="benefits-heading"><h2 id="benefits-heading">${escapeHtml(options.heading ?? 'Your downloads and license keys')}</h2><ul class="benefits">${items}</ul>${pending}${linkNote}</section>\n`;
}

/** The CSS the section needs on a page of its own style. */
export const BENEFITS_STYLE =
  '#benefits .note{color:#555;font-size:.9rem}ul.benefits,ul.benefit-files{list-style:none;margin:0;padding:0}li.benefit{padding:.5rem 0;border-top:1px solid #e5e5e5}li.benefit:first-child{border-top:0}li.benefit h3{font-size:1rem;margin:0 0 .25rem}ul.benefit-files li{margin:.2rem 0}.license-key{margin:.25rem 0}.license-key code{font:600 1rem/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f5f9;border:1px solid #cbd5e1;border-radius:.35rem;padding:.2rem .5rem;user-select:all;overflow-wrap:anywhere}';
