import type { Frame, Size } from './protocol.ts';

const CSS = `
.csdk-root{position:fixed;inset:0;z-index:2147483000;display:flex;font:14px/1.4 system-ui,sans-serif}
.csdk-backdrop{position:absolute;inset:0;background:rgba(15,23,42,.55);opacity:0;transition:opacity .2s ease}
.csdk-open .csdk-backdrop{opacity:1}
.csdk-panel{position:relative;background:#fff;box-shadow:0 24px 64px rgba(15,23,42,.35);display:flex;flex-direction:column;overflow:hidden;transition:transform .25s ease,opacity .2s ease}
.csdk-panel iframe,.csdk-embedded iframe{border:0;width:100%;display:block;background:transparent;color-scheme:normal}
.csdk-modal{align-items:center;justify-content:center;padding:16px;box-sizing:border-box}
.csdk-modal .csdk-panel{width:100%;max-width:var(--csdk-w);max-height:calc(100vh - 32px);border-radius:14px;opacity:0;transform:translateY(12px) scale(.98)}
.csdk-modal.csdk-open .csdk-panel{opacity:1;transform:none}
.csdk-modal iframe{height:var(--csdk-h,520px);max-height:calc(100vh - 32px)}
.csdk-slideout{justify-content:flex-end}
.csdk-slideout .csdk-panel{height:100%;width:100%;max-width:var(--csdk-w);transform:translateX(100%)}
.csdk-slideout.csdk-open .csdk-panel{transform:none}
.csdk-slideout iframe,.csdk-bottom-sheet iframe{flex:1;height:100%}
.csdk-bottom-sheet{align-items:flex-end;justify-content:center}
.csdk-bottom-sheet .csdk-panel{width:100%;max-width:var(--csdk-w);height:var(--csdk-sheet-h);border-radius:16px 16px 0 0;transform:translateY(100%)}
.csdk-bottom-sheet.csdk-open .csdk-panel{transform:none}
.csdk-bottom-sheet .csdk-panel:before{content:"";display:block;width:40px;height:4px;border-radius:2px;background:#cbd5e1;margin:8px auto 0;flex:none}
.csdk-size-sm{--csdk-w:400px;--csdk-sheet-h:50vh}.csdk-size-md{--csdk-w:480px;--csdk-sheet-h:75vh}.csdk-size-lg{--csdk-w:680px;--csdk-sheet-h:90vh}
.csdk-size-full{--csdk-w:100%;--csdk-sheet-h:100vh}
.csdk-slideout.csdk-size-sm{--csdk-w:380px}.csdk-slideout.csdk-size-md{--csdk-w:460px}.csdk-slideout.csdk-size-lg{--csdk-w:640px}
.csdk-bottom-sheet.csdk-size-sm{--csdk-w:560px}.csdk-bottom-sheet.csdk-size-md{--csdk-w:720px}.csdk-bottom-sheet.csdk-size-lg{--csdk-w:960px}
.csdk-modal.csdk-size-full{padding:0}.csdk-modal.csdk-size-full .csdk-panel{max-height:100vh;height:100vh;border-radius:0}
.csdk-modal.csdk-size-full iframe{height:100%;max-height:none;flex:1}
.csdk-embedded{position:relative;width:100%;max-width:var(--csdk-w)}
.csdk-embedded iframe{height:var(--csdk-h,560px);transition:height .15s ease}
.csdk-loading{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;background:#fff;transition:opacity .2s}
.csdk-ready .csdk-loading{opacity:0;pointer-events:none;visibility:hidden}
.csdk-close{position:absolute;top:10px;right:10px;width:36px;height:36px;border:0;border-radius:8px;background:rgba(255,255,255,.9);color:#475569;font:22px/1 system-ui,sans-serif;cursor:pointer}
.csdk-close:hover{background:#f1f5f9;color:#0f172a}.csdk-close:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}
.csdk-error{margin:0 24px;max-width:340px;text-align:center;color:#334155;font-size:15px;line-height:1.5}
.csdk-failed iframe{visibility:hidden}
.csdk-spinner{width:28px;height:28px;border-radius:50%;border:3px solid #e2e8f0;border-top-color:#64748b;animation:csdk-spin .8s linear infinite}
@keyframes csdk-spin{to{transform:rotate(360deg)}}
:where(.csdk-promo){display:inline-flex;flex-wrap:wrap;gap:.5em;align-items:baseline;padding:.35em .9em;border-radius:999px;background:#fef3c7;color:#78350f}
:where(.csdk-promo-tier:not(:empty)){font-size:.85em;font-weight:600;padding:.05em .6em;border-radius:999px;background:rgba(255,255,255,.6)}
:where(.csdk-promo-countdown){font-variant-numeric:tabular-nums}
.csdk-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (prefers-reduced-motion:reduce){.csdk-panel,.csdk-backdrop,.csdk-loading,.csdk-embedded iframe{transition:none}.csdk-spinner{animation:none}}
`;

let installed = false;

/**
 * One scroll lock for every open overlay: each saving and restoring the page's overflow itself
 * left it locked when two closed in the order they opened.
 */
let scrollLocks = 0;
let pageOverflow = '';

/** Open overlays, newest last; everything else in <body> is inert while one is open (focus stays in the dialog). */
const openOverlays: HTMLElement[] = [];
const madeInert = new Set<Element>();

function updateInert(doc: Document): void {
  const top = openOverlays[openOverlays.length - 1];
  for (const el of [...madeInert]) {
    if (el === top || !top) {
      el.removeAttribute('inert');
      madeInert.delete(el);
    }
  }
  if (!top) return;
  // Only what we made inert is given back: the page's own inert elements stay as they were.
  for (const el of doc.body.children) {
    if (el !== top && !el.hasAttribute('inert')) {
      el.setAttribute('inert', '');
      madeInert.add(el);
    }
  }
}

function lockScroll(doc: Document): () => void {
  if (scrollLocks++ === 0) {
    pageOverflow = doc.documentElement.style.overflow;
    doc.documentElement.style.overflow = 'hidden';
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--scrollLocks === 0) doc.documentElement.style.overflow = pageOverflow;
  };
}

/** Constructable stylesheets are not subject to the host page's CSP style-src; a <style> is the fallback. */
export function installStyles(doc: Document): void {
  if (installed) return;
  installed = true;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  } catch {
    const style = doc.createElement('style');
    style.textContent = CSS;
    doc.head.appendChild(style);
  }
}

/** A new element with its class and attributes (node by node: a page requiring Trusted Types refuses innerHTML with a plain string). */
export function element<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string, attributes: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

export type FrameView = {
  iframe: HTMLIFrameElement;
  /** The element the frame lives in; for embedded, inside the target. */
  root: HTMLElement;
  backdrop: HTMLElement | null;
  setHeight(px: number): void;
  markReady(): void;
  /** Replaces the frame with a message; the frame's page is dropped so a late answer cannot revive it. */
  fail(message: string): void;
  remove(): void;
};

/**
 * Builds the container of one modality around an iframe pointing at the hosted page. Overlays get
 * a close button of their own, shown until the page is ready: a frame that never loads has no ×.
 */
export function createFrameView(doc: Document, frame: Frame, size: Size, src: string, target: Element | null, onClose: () => void): FrameView {
  installStyles(doc);
  const iframe = doc.createElement('iframe');
  iframe.title = 'Checkout';
  // clipboard-write: the thank-you page's Copy button for a license key.
  iframe.setAttribute('allow', 'payment; clipboard-write');
  iframe.src = src;
  const loading = element(doc, 'div', 'csdk-loading');
  const spinner = element(doc, 'div', 'csdk-spinner', { role: 'status', 'aria-label': 'Loading checkout' });
  loading.append(spinner);
  let closeButton: HTMLButtonElement | null = null;
  if (frame !== 'embedded') {
    const close = (closeButton = element(doc, 'button', 'csdk-close', { type: 'button', 'aria-label': 'Close checkout' }));
    close.textContent = '×';
    close.addEventListener('click', onClose);
    loading.append(close);
  }

  let root: HTMLElement;
  let backdrop: HTMLElement | null = null;
  let unlockScroll: () => void = () => undefined;
  if (frame === 'embedded') {
    root = element(doc, 'div', `csdk-embedded csdk-size-${size}`);
    root.append(iframe, loading);
    (target ?? doc.body).appendChild(root);
  } else {
    root = element(doc, 'div', `csdk-root csdk-${frame} csdk-size-${size}`, { role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Checkout' });
    backdrop = element(doc, 'div', 'csdk-backdrop');
    const panel = element(doc, 'div', 'csdk-panel');
    panel.append(iframe, loading);
    // Tab out of the frame lands on one of these and goes back in: Chromium tabs into the iframe of an
    // inert element, and old browsers lack inert.
    const guard = () => {
      const el = doc.createElement('span');
      el.tabIndex = 0;
      el.addEventListener('focus', () => (root.classList.contains('csdk-ready') ? iframe : closeButton)?.focus());
      return el;
    };
    root.append(guard(), backdrop, panel, guard());
    doc.body.appendChild(root);
    unlockScroll = lockScroll(doc);
    openOverlays.push(root);
    updateInert(doc);
    // The dialog's only control until the page is ready; the opener behind it is inert now.
    closeButton?.focus({ preventScroll: true });
    // Next frame, so the transition runs from the closed position.
    requestAnimationFrame(() => requestAnimationFrame(() => root.classList.add('csdk-open')));
  }
  return {
    iframe,
    root,
    backdrop,
    setHeight(px) {
      root.style.setProperty('--csdk-h', `${Math.max(200, Math.min(px, 4000))}px`);
    },
    markReady() {
      root.classList.add('csdk-ready');
      // Into the dialog once it has something to focus; never for embedded, whose page the buyer may be typing in.
      // Not again when focus is in the frame already (the buyer clicked a field before this): focusing the
      // iframe element would take it off that field.
      if (backdrop && doc.activeElement !== iframe) iframe.focus();
    },
    fail(message) {
      iframe.src = 'about:blank';
      const text = element(doc, 'p', 'csdk-error', { role: 'alert' });
      text.textContent = message;
      spinner.replaceWith(text);
      root.classList.remove('csdk-ready');
      root.classList.add('csdk-failed');
      root.style.setProperty('--csdk-h', '240px');
      closeButton?.focus();
    },
    remove() {
      root.remove();
      unlockScroll();
      const i = openOverlays.indexOf(root);
      if (i >= 0) {
        openOverlays.splice(i, 1);
        updateInert(doc);
      }
    },
  };
}
