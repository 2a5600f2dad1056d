import type { PresentOptions, SdkInternals } from './createSdk.ts';
import type { FlowHandle } from './flowHandle.ts';
import type { PromoHandle } from './promoHandle.ts';
import type { Mode } from './protocol.ts';

const MODES: readonly string[] = ['test', 'live', 'preview'];

/** Options an element asks for; the promo comes from itself or the nearest `data-service-apply-promo`, a code from `data-service-discount`. */
export function optionsOf(el: Element): PresentOptions {
  const opts: PresentOptions = {};
  const frame = el.getAttribute('data-service-frame');
  const size = el.getAttribute('data-service-size');
  const mode = el.getAttribute('data-service-mode');
  const promo = el.closest('[data-service-apply-promo]')?.getAttribute('data-service-apply-promo');
  const discount = el.getAttribute('data-service-discount');
  if (frame) opts.frame = frame;
  if (discount?.trim()) opts.discount_code = discount.trim();
  if (size) opts.size = size;
  if (mode && MODES.includes(mode)) opts.mode = mode as Mode;
  if (promo) opts.promo = promo;
  return opts;
}

/**
 * Wires the data-service-* attributes: clicks are delegated from the document (so buttons added
 * later work without binding), and one MutationObserver mounts new elements and tears down the
 * ones that left the DOM.
 */
export function startDeclarative(internals: SdkInternals): void {
  const { doc, sdk, handles, mounts } = internals;
  const promos = new Map<Element, { handle: PromoHandle; unrender: () => void }>();

  const isLive = (h: FlowHandle | PromoHandle | undefined): boolean => Boolean(h && 'close' in h && h.result === null);

  doc.addEventListener('click', (event) => {
    const el = (event.target as Element | null)?.closest?.('[data-service-present]');
    if (!el) return;
    event.preventDefault();
    if (isLive(handles.get(el))) return; // a double click does not open a second checkout
    const offer = el.getAttribute('data-service-present') ?? '';
    const opts = optionsOf(el);
    // Embedded: in a slot of its own just after the element, removed again if left empty.
    const slot = (opts.frame ?? '').toLowerCase() === 'embedded' ? doc.createElement('div') : null;
    if (slot) {
      el.insertAdjacentElement('afterend', slot);
      opts.target = slot;
    }
    const handle = sdk.present(offer, opts);
    handles.set(el, handle);
    if (slot) void handle.then(() => !slot.hasChildNodes() && slot.remove());
  });

  const scan = (root: ParentNode) => {
    const els: Element[] = root instanceof Element ? [root] : [];
    els.push(...root.querySelectorAll('[data-service-mount],[data-service-promo]'));
    for (const el of els) {
      const offer = el.getAttribute('data-service-mount');
      if (offer && !mounts.has(el)) {
        try {
          sdk.mount(el, offer, optionsOf(el));
        } catch (error) {
          console.error(error);
        }
      }
      const slug = el.getAttribute('data-service-promo');
      if (slug && !promos.has(el)) {
        const handle = sdk.promo(slug);
        promos.set(el, { handle, unrender: handle.render(el) });
        handles.set(el, handle);
      }
    }
  };

  const sweep = () => {
    for (const [el, handle] of mounts) if (!el.isConnected) handle.close();
    for (const [el, p] of promos) {
      if (el.isConnected) continue;
      p.unrender();
      p.handle.stop();
      promos.delete(el);
      handles.delete(el);
    }
  };

  const observe = () => {
    scan(doc);
    new MutationObserver((records) => {
      let removed = false;
      for (const r of records) {
        if (r.type === 'attributes') scan(r.target as Element);
        for (const n of r.addedNodes) if (n.nodeType === 1) scan(n as Element);
        if (r.removedNodes.length) removed = true;
      }
      if (removed) sweep();
    }).observe(doc.documentElement, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['data-service-mount', 'data-service-promo'],
    });
  };
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', observe, { once: true });
  else observe();
}
