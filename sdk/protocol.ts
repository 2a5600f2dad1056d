/**
 * The messages between the SDK (in the seller's page) and the hosted checkout page (in a frame).
 * Only `hello` and `init` travel over window.postMessage; everything after the handshake goes
 * over the MessageChannel port the SDK hands over in `init`, which no other frame can reach.
 */
export const PROTOCOL = 'commerce-checkout/1';

export type Frame = 'modal' | 'slideout' | 'bottom-sheet' | 'embedded';
export type Size = 'sm' | 'md' | 'lg' | 'full';
export type Mode = 'test' | 'live' | 'preview';

/** The subscription a purchase of a recurring plan made, with the status it started in (`trialing` or `active`). */
export type SubscriptionRef = { id: string; status: string };

export type SessionView = {
  id: string;
  status: string;
  currency: string;
  total: number;
  mode?: string;
  expires_at?: number;
  /** The promo tier whose price the session took; null when its promo priced nothing. */
  promo_tier?: string | null;
  invoice?: unknown;
  /** Set once a recurring plan's session completes; null otherwise. */
  subscription?: SubscriptionRef | null;
  /** The lines before discount; the discount and tax (modules/checkout/http/pricingSchemas.ts). */
  amount_subtotal?: number;
  total_details?: {
    amount_discount: number;
    amount_tax: number;
    breakdown?: { taxes: Array<{ amount: number; inclusive: boolean; percentage: number; taxability_reason: string; tax_rate?: { display_name: string } | null }> };
  };
  discounts?: Array<{ coupon: { id: string; name: string | null }; promotion_code: { id: string; code: string } | null }>;
  customer_details?: { address: { country: string; postal_code: string | null } | null; business_name: string | null; tax_id: { value: string } | null; tax_exempt: string } | null;
};

/** Why a flow could not offer a checkout: the server's code and message where it refused, else the SDK's. */
export type FlowError = { code: string; message: string };

export type FlowEvent =
  | { type: 'start'; session: SessionView; invoice?: unknown }
  | { type: 'purchase'; session: SessionView; invoice?: unknown; payment?: { brand: string; last4: string }; subscription: SubscriptionRef | null }
  | { type: 'complete'; session: SessionView }
  | { type: 'cancel'; session?: SessionView };

/** Frame → parent, on window, targeted at the parent origin the SDK named in the frame URL. */
export type HelloMessage = { protocol: typeof PROTOCOL; type: 'hello'; nonce: string };
/** Parent → frame, on window, targeted at the checkout origin; carries port2 of a MessageChannel. */
export type InitMessage = {
  protocol: typeof PROTOCOL;
  type: 'init';
  nonce: string;
  customer?: { email?: string; token?: string };
  metadata?: Record<string, string>;
  /** A promotion code to open the checkout with (the SDK's `discount_code` option or `data-service-discount`). */
  discount_code?: string;
};

/** Frame → SDK over the port. */
export type PortMessage =
  | { type: 'ready'; session: SessionView | null }
  | { type: 'resize'; height: number }
  | { type: 'event'; event: FlowEvent }
  /** A start or pay request is in flight: the frame must not be dismissed until it has an answer. */
  | { type: 'busy'; busy: boolean }
  /** The page cannot offer a checkout (unknown offer, bad link, session refused); it shows the buyer why. */
  | { type: 'error'; error: FlowError }
  | { type: 'close' };

/**
 * SDK → frame over the port: the buyer dismissed the frame from outside (backdrop, Escape), or the
 * SDK moved focus into the overlay's frame, which may now focus its first field (a frame that has
 * no focus of its own cannot take it).
 */
export type ParentMessage = { type: 'dismiss' } | { type: 'focus' };

/**
 * The server's email check (zod's z.email(), test/sdk/flowHandle.unit.test.ts holds them equal):
 * an address the SDK or the form accepts is one the session routes accept. No IDN, a TLD of 2+ letters.
 */
export const EMAIL = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL.test(value);

export const FRAMES: readonly Frame[] = ['modal', 'slideout', 'bottom-sheet', 'embedded'];
export const SIZES: readonly Size[] = ['sm', 'md', 'lg', 'full'];

/** Accepts the spec's spelling `bottom sheet` as well as `bottom-sheet`. */
export function normalizeFrame(value: string | null | undefined, fallback: Frame = 'modal'): Frame {
  if (!value) return fallback;
  const v = value.trim().toLowerCase().replace(/[\s_]+/g, '-');
  return (FRAMES as readonly string[]).includes(v) ? (v as Frame) : fallback;
}

export function normalizeSize(value: string | null | undefined): Size {
  const v = (value ?? '').trim().toLowerCase();
  return (SIZES as readonly string[]).includes(v) ? (v as Size) : 'md';
}
