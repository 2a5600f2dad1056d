import { createFlow, type FlowHandle } from './flowHandle.ts';
import { createFrameView } from './frames.ts';
import {
  PROTOCOL,
  type FlowError,
  type Frame,
  type HelloMessage,
  type InitMessage,
  type Mode,
  type PortMessage,
  type SessionView,
  type Size,
} from './protocol.ts';

export type FlowSpec = {
  baseUrl: string;
  offer: string;
  frame: Frame;
  size: Size;
  mode?: Mode;
  promo?: string;
  /** The buyer's promotion code, handed to the page, which applies it when it makes the session. */
  discountCode?: string;
  customer?: { email?: string; token?: string };
  metadata?: Record<string, string>;
  target: Element | null;
};

/** How long the frame gets to record a dismissal (backdrop, Escape) before the SDK ends the flow itself. */
const DISMISS_GRACE_MS = 1500;
/** How long close() waits for a payment in flight to be answered before it closes regardless. */
const PAY_WAIT_MS = 30_000;
const CHECK_TIMEOUT_MS = 5000;
/** A frame that has not shown a checkout (or said why not) by then never will: a dead server, a blocked frame. */
const LOAD_TIMEOUT_MS = 20_000;
/** The hosted page greets the SDK before its load event; a frame that loaded without a greeting is an error page. */
const AFTER_LOAD_MS = 3000;
const LOAD_FAILED = 'The checkout could not be loaded. Please check your connection and try again.';

/** Open overlays, newest last: Escape dismisses only the top one. */
const overlays: string[] = [];

/** The session if the server reports it paid; null when it is not, or cannot be asked. */
async function paidSession(baseUrl: string, id: string): Promise<SessionView | null> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CHECK_TIMEOUT_MS);
  try {
    const res = await fetch(`${baseUrl}/api/checkout/sessions/${encodeURIComponent(id)}`, {
      headers: { accept: 'application/json' },
      credentials: 'omit',
      signal: abort.signal,
    });
    const body = res.ok ? ((await res.json()) as { session?: SessionView }) : null;
    return body?.session?.status === 'completed' ? body.session : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * Opens the hosted page in a frame and wires one flow to it. The only window message accepted is
 * the frame's `hello`, and only from this iframe's window, from the checkout origin, with this
 * flow's nonce; then a MessageChannel port carries everything else, so other frames (or other
 * flows on the same page) cannot inject events.
 */
export function openFlow(doc: Document, spec: FlowSpec, onEnd: () => void): FlowHandle {
  const win = doc.defaultView!;
  const nonce = randomToken();
  // The frame greets the page at its origin; a file:// or sandboxed page has none it could name.
  const servable = /^https?:\/\//.test(win.location.origin);
  const checkoutOrigin = new URL(spec.baseUrl).origin;
  const url = new URL(`${spec.baseUrl}/checkout/${encodeURIComponent(spec.offer)}`);
  const params = { frame: spec.frame, size: spec.size, nonce, origin: win.location.origin, mode: spec.mode, promo: spec.promo };
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);

  let port: MessagePort | null = null;
  let session: SessionView | undefined;
  let torn = false;
  /** The buyer pressed Pay at least once: from then on only the server knows whether it was paid. */
  let started = false;
  let paying = false;
  let closeWanted = false;
  let dismissTimer: ReturnType<typeof setTimeout> | undefined;
  let payWaitTimer: ReturnType<typeof setTimeout> | undefined;
  let loadTimer: ReturnType<typeof setTimeout> | undefined;
  const opener = doc.activeElement as HTMLElement | null;
  const view = createFrameView(doc, spec.frame, spec.size, servable ? url.toString() : 'about:blank', spec.target, () => dismiss());
  if (spec.frame !== 'embedded') overlays.push(nonce);
  const flow = createFlow(nonce, close);

  function endWithError(error: FlowError): void {
    if (flow.ended) return;
    console.error(`sdk: ${error.message}`);
    flow.end({ status: 'error', error, ...(session ? { session } : {}) });
  }

  /** The frame never became a checkout: the panel says so (with its own close button) and the flow ends. */
  function failLoad(error: FlowError, buyerMessage = LOAD_FAILED): void {
    if (torn || flow.ended) return;
    clearTimeout(loadTimer);
    win.removeEventListener('message', onWindowMessage);
    port?.close();
    port = null;
    view.fail(buyerMessage);
    endWithError(error);
  }

  function close(): void {
    if (torn) return;
    // Closing the frame mid-payment would abort the request, not the charge: wait for the answer.
    if (paying && !flow.ended && view.iframe.isConnected) {
      closeWanted = true;
      payWaitTimer ??= setTimeout(() => void finish('closed'), PAY_WAIT_MS);
      return;
    }
    void finish('closed');
  }

  /** Removes the frame, then resolves the flow as the server sees it: a paid session is complete, whatever closed it. */
  async function finish(ending: 'cancel' | 'closed'): Promise<void> {
    if (torn) return;
    teardown();
    if (!flow.ended) {
      const paid = started && session ? await paidSession(spec.baseUrl, session.id) : null;
      if (paid) {
        const subscription = paid.subscription ?? null;
        flow.push({ type: 'purchase', session: paid, invoice: paid.invoice, subscription });
        flow.push({ type: 'complete', session: paid });
        flow.end({ status: 'complete', session: paid, subscription });
      } else {
        if (ending === 'cancel') flow.push({ type: 'cancel', ...(session ? { session } : {}) });
        flow.end({ status: ending, ...(session ? { session } : {}) });
      }
    }
    onEnd();
  }

  function teardown(): void {
    if (torn) return;
    torn = true;
    clearTimeout(dismissTimer);
    clearTimeout(payWaitTimer);
    clearTimeout(loadTimer);
    win.removeEventListener('message', onWindowMessage);
    doc.removeEventListener('keydown', onKeydown, true);
    port?.close();
    view.remove();
    const i = overlays.indexOf(nonce);
    if (i >= 0) {
      overlays.splice(i, 1);
      // Back to the button that opened the checkout, for keyboard and screen-reader users.
      if (opener?.isConnected && typeof opener.focus === 'function') opener.focus();
    }
  }

  function dismiss(): void {
    if (paying || torn) return; // the page shows the payment in progress; its answer decides
    if (flow.ended || !port) {
      void finish('cancel');
      return;
    }
    port.postMessage({ type: 'dismiss' });
    clearTimeout(dismissTimer);
    dismissTimer = setTimeout(() => {
      if (!paying) void finish('cancel');
    }, DISMISS_GRACE_MS);
  }

  function markReady(): void {
    view.markReady();
    if (spec.frame !== 'embedded') port?.postMessage({ type: 'focus' });
  }

  function onPortMessage(event: MessageEvent<PortMessage>): void {
    const msg = event.data;
    if (!msg || typeof msg !== 'object' || torn) return;
    switch (msg.type) {
      case 'ready':
        clearTimeout(loadTimer);
        if (msg.session) session = msg.session;
        markReady();
        break;
      case 'error':
        clearTimeout(loadTimer);
        markReady(); // the page shows the buyer why
        endWithError({ code: String(msg.error?.code ?? 'error'), message: String(msg.error?.message ?? 'The checkout is not available.') });
        break;
      case 'resize':
        if (typeof msg.height === 'number') view.setHeight(msg.height);
        break;
      case 'busy':
        paying = msg.busy === true;
        if (!paying && closeWanted) void finish('closed');
        break;
      case 'close':
        void finish('closed');
        break;
      case 'event': {
        const ev = msg.event;
        if (!ev || typeof ev !== 'object') return;
        if ('session' in ev && ev.session) session = ev.session;
        if (ev.type === 'start' || ev.type === 'purchase') {
          started = true;
          flow.push(ev);
        } else if (ev.type === 'complete') {
          flow.push(ev);
          flow.end({ status: 'complete', session: ev.session, subscription: ev.session?.subscription ?? null });
          if (closeWanted) void finish('closed');
        } else if (ev.type === 'cancel') {
          flow.push(ev);
          flow.end({ status: 'cancel', ...(session ? { session } : {}) });
          void finish('cancel');
        }
        break;
      }
    }
  }

  function onWindowMessage(event: MessageEvent): void {
    const data = event.data as Partial<HelloMessage> | null;
    if (event.source !== view.iframe.contentWindow || event.origin !== checkoutOrigin) return;
    if (!data || data.protocol !== PROTOCOL || data.type !== 'hello' || data.nonce !== nonce) return;
    // A reload of the frame says hello again: hand over a fresh port and drop the old one.
    port?.close();
    const channel = new MessageChannel();
    port = channel.port1;
    port.onmessage = onPortMessage;
    const init: InitMessage = {
      protocol: PROTOCOL,
      type: 'init',
      nonce,
      ...(spec.customer ? { customer: spec.customer } : {}),
      ...(spec.metadata ? { metadata: spec.metadata } : {}),
      ...(spec.discountCode ? { discount_code: spec.discountCode } : {}),
    };
    view.iframe.contentWindow!.postMessage(init, checkoutOrigin, [channel.port2]);
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && spec.frame !== 'embedded' && overlays[overlays.length - 1] === nonce) dismiss();
  }

  win.addEventListener('message', onWindowMessage);
  if (!servable) {
    failLoad(
      { code: 'unsupported_origin', message: `the checkout cannot be embedded in a page whose origin is ${win.location.origin}: serve the page over http or https` },
      'The checkout cannot be opened from this page.',
    );
  } else {
    const failed = (detail: string) => failLoad({ code: 'load_failed', message: `the checkout page ${url.origin}${url.pathname} ${detail}` });
    loadTimer = setTimeout(() => failed(`did not load within ${LOAD_TIMEOUT_MS / 1000} s`), LOAD_TIMEOUT_MS);
    view.iframe.addEventListener('load', () => {
      setTimeout(() => {
        if (!port && !torn) failed('loaded without greeting the SDK (the service is unreachable, or refused the page or its framing)');
      }, AFTER_LOAD_MS);
    });
  }
  if (spec.frame !== 'embedded') {
    doc.addEventListener('keydown', onKeydown, true);
    view.backdrop?.addEventListener('click', dismiss);
  }
  return flow.handle;
}
