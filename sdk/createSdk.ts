import type { FlowHandle, FlowResult } from './flowHandle.ts';
import { openFlow } from './openFlow.ts';
import { PROMO_POLL_MS, createPromoHandle, type PromoHandle } from './promoHandle.ts';
import { isEmail, normalizeFrame, normalizeSize, type Mode } from './protocol.ts';
import { startDeclarative } from './declarative.ts';

export type PresentOptions = {
  /** `modal` (default for present), `slideout`, `bottom sheet`/`bottom-sheet`, `embedded`. */
  frame?: string;
  /** `sm`, `md` (default), `lg`, `full`. */
  size?: string;
  /** Promo slug applied to the session (slugs are lower case: `Spring-Sale` is sent as `spring-sale`). */
  promo?: string;
  /** A promotion code the buyer got (case-insensitive): the checkout opens with it applied, or says why it cannot be. */
  discount_code?: string;
  /** Signed customer token (JWT); overrides identify() for this flow. */
  user?: string;
  /** Up to 20 keys stored on the session; values are strings (numbers and booleans are sent as strings). */
  metadata?: Record<string, string | number | boolean>;
  /** `test`, `live` or `preview` (renders only: no session, no invoice). Server default when unset. */
  mode?: Mode;
  /** Where an `embedded` present() renders; defaults to the end of <body>. */
  target?: Element | string;
};

export type GateCheck = () => boolean | Promise<boolean>;
export type GateOutcome = { name: string; passed: boolean; presented: boolean; result?: FlowResult };

export type Sdk = {
  readonly version: string;
  present(offer: string, opts?: PresentOptions): FlowHandle;
  mount(target: Element | string, offer: string, opts?: Omit<PresentOptions, 'frame' | 'target'>): FlowHandle;
  identify(jwtOrEmail: string): void;
  reset(): void;
  ready(callback: (sdk: Sdk) => void): void;
  from(element: Element | string): FlowHandle | PromoHandle | null;
  /** `interval`: milliseconds between polls (default PROMO_POLL_MS = 15 s, at least 1 s). */
  promo(slug: string, opts?: { interval?: number }): PromoHandle;
  addGate(name: string, offer: string, check: GateCheck, opts?: PresentOptions): void;
  gate(name: string): Promise<GateOutcome>;
  /** The anonymous id of this browser (localStorage), kept across reset(). */
  readonly deviceId: string;
};

/** Internals shared with the declarative layer. */
export type SdkInternals = {
  sdk: Sdk;
  doc: Document;
  handles: WeakMap<Element, FlowHandle | PromoHandle>;
  mounts: Map<Element, FlowHandle>;
};

export const DEVICE_ID_KEY = 'commerce_sdk_device_id';
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** The session route's limit; the SDK's own key only takes a free place. */
const METADATA_KEYS = 20;

function loadDeviceId(win: Window): string {
  const fresh = () => crypto.randomUUID();
  try {
    let id = win.localStorage.getItem(DEVICE_ID_KEY);
    if (!id) {
      id = fresh();
      win.localStorage.setItem(DEVICE_ID_KEY, id);
    }
    return id;
  } catch {
    return fresh(); // storage blocked (sandboxed frame, privacy mode): anonymous per page load
  }
}

/** The seller's metadata as the server takes it: numbers and booleans as strings, then our device id if there is room. */
function sessionMetadata(metadata: PresentOptions['metadata'], deviceId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    // Anything else (objects, null) goes as it is, and the server's refusal reaches the flow as an error result.
    out[key] = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
  if (Object.keys(out).length < METADATA_KEYS || 'sdk_device_id' in out) out.sdk_device_id = deviceId;
  return out;
}

function resolveTarget(doc: Document, target: Element | string): Element {
  const el = typeof target === 'string' ? doc.querySelector(target) : target;
  if (!el) throw new TypeError(`sdk: no element matches ${String(target)}`);
  return el;
}

export function createSdk(options: { baseUrl: string; document?: Document; declarative?: boolean }): Sdk {
  const { sdk, startAttributes } = createSdkCore(options);
  if (options.declarative !== false) startAttributes();
  return sdk;
}

/** The SDK plus the switch that wires the data-service-* attributes, for the script to flip after the queue ran. */
export function createSdkCore(options: { baseUrl: string; document?: Document }): { sdk: Sdk; startAttributes(): void } {
  const doc = options.document ?? document;
  const win = doc.defaultView!;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  let identity: { email?: string; token?: string } | null = null;
  const gates = new Map<string, { offer: string; check: GateCheck; opts?: PresentOptions }>();
  const deviceId = loadDeviceId(win);

  const internals: SdkInternals = { sdk: null as unknown as Sdk, doc, handles: new WeakMap(), mounts: new Map() };

  function start(offer: string, opts: PresentOptions, frameDefault: 'modal' | 'embedded', target: Element | null, onEnd: () => void = () => undefined): FlowHandle {
    if (typeof offer !== 'string' || offer.trim() === '') throw new TypeError('sdk: offer must be a slug, Sqid or UUID');
    const customer = opts.user ? { token: opts.user } : identity ? { ...identity } : undefined;
    return openFlow(
      doc,
      {
        baseUrl,
        offer: offer.trim(),
        frame: normalizeFrame(opts.frame, frameDefault),
        size: normalizeSize(opts.size),
        ...(opts.mode ? { mode: opts.mode } : {}),
        ...(opts.promo ? { promo: String(opts.promo).trim().toLowerCase() } : {}),
        ...(typeof opts.discount_code === 'string' && opts.discount_code.trim() ? { discountCode: opts.discount_code.trim() } : {}),
        ...(customer ? { customer } : {}),
        metadata: sessionMetadata(opts.metadata, deviceId),
        target,
      },
      onEnd,
    );
  }

  const sdk: Sdk = {
    version: '1.0.0',
    deviceId,
    present(offer, opts = {}) {
      const frame = normalizeFrame(opts.frame, 'modal');
      const target = frame === 'embedded' && opts.target ? resolveTarget(doc, opts.target) : null;
      if (target) return sdk.mount(target, offer, opts);
      return start(offer, opts, 'modal', null);
    },
    mount(target, offer, opts = {}) {
      const el = resolveTarget(doc, target);
      const existing = internals.mounts.get(el);
      if (existing) return existing;
      const handle: FlowHandle = start(offer, { ...opts, frame: 'embedded' }, 'embedded', el, () => {
        if (internals.mounts.get(el) === handle) internals.mounts.delete(el);
      });
      internals.mounts.set(el, handle);
      internals.handles.set(el, handle);
      return handle;
    },
    identify(jwtOrEmail) {
      const value = String(jwtOrEmail ?? '').trim();
      if (JWT.test(value)) identity = { token: value };
      else if (isEmail(value)) identity = { email: value };
      else throw new TypeError('sdk.identify: expected a signed user token (JWT) or an email address the checkout accepts (ASCII, as name@example.com)');
    },
    reset() {
      identity = null;
    },
    ready(callback) {
      queueMicrotask(() => callback(sdk));
    },
    from(element) {
      const el = typeof element === 'string' ? doc.querySelector(element) : element;
      return el ? (internals.handles.get(el) ?? null) : null;
    },
    promo(slug, opts = {}) {
      if (typeof slug !== 'string' || slug.trim() === '') throw new TypeError('sdk.promo: slug required');
      const interval = Math.max(1000, Number(opts.interval) || PROMO_POLL_MS);
      return createPromoHandle(baseUrl, slug.trim(), interval);
    },
    addGate(name, offer, check, opts) {
      if (typeof check !== 'function') throw new TypeError('sdk.addGate: check must be a function');
      gates.set(name, { offer, check, ...(opts ? { opts } : {}) });
    },
    async gate(name) {
      const gate = gates.get(name);
      if (!gate) throw new Error(`sdk.gate: no gate named ${name}`);
      if (await gate.check()) return { name, passed: true, presented: false };
      const result = await sdk.present(gate.offer, gate.opts);
      // The check is the source of truth (the seller's own access rules); a purchase usually flips it.
      const passed = result.status === 'complete' ? true : Boolean(await gate.check());
      return { name, passed, presented: true, result };
    },
  };
  internals.sdk = sdk;
  let started = false;
  return {
    sdk,
    startAttributes() {
      if (!started) startDeclarative(internals);
      started = true;
    },
  };
}
