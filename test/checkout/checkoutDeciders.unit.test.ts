import { describe, expect, it } from 'vitest';
import {
  checkoutSessionDecider,
  effectiveStatus,
  type CheckoutSessionEvent,
  type SessionCustomer,
} from '../../modules/checkout/domain/checkoutSession.ts';
import { invoiceDecider, type InvoiceEvent } from '../../modules/checkout/domain/invoice.ts';
import { offerDecider, type OfferContent, type OfferEvent } from '../../modules/checkout/domain/offer.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const content: OfferContent = {
  name: 'Pro plan',
  theme: {
    primary_color: '#3355ff',
    background_color: '#ffffff',
    text_color: '#111111',
    font_family: 'Inter, sans-serif',
    logo_url: null,
    button_text: 'Pay now',
  },
  pages: [{ id: 'pay', type: 'checkout', title: 'Checkout', blocks: [{ type: 'price' }] }],
  plan: { product_id: 'p1', plan_id: 'pl1', plan_name: 'monthly', charges: [{ id: 'c1', name: 'Monthly', amount: 1900 }, { id: 'c2', name: 'Setup', amount: 500 }] },
  currency: 'EUR',
};

const created: OfferEvent = {
  type: 'OfferCreated',
  data: { ...content, uuid: 'u1', id: 1, organization_id: 'org_a', slug: 'pro', price: 2400, created_at: 100 },
};

describe('offer decider', () => {
  const spec = deciderSpec(offerDecider);
  it('creates a draft with the price summed from the plan charges', () => {
    spec.given([]).when({ type: 'CreateOffer', uuid: 'u1', id: 1, organizationId: 'org_a', slug: 'pro', now: 100, ...content }).then([created]);
  });
  it.each([
    ['a bad slug', { slug: 'Not A Slug' }, 'invalid_slug'],
    ['a bad color', { theme: { ...content.theme, primary_color: 'blue' } }, 'invalid_theme'],
    ['no checkout page', { pages: [{ id: 'x', type: 'thank_you' as const, title: 'Thanks', blocks: [] }] }, 'no_checkout_page'],
    ['a plan without charges', { plan: { ...content.plan, charges: [] } }, 'plan_without_charges'],
    ['a lower-case currency', { currency: 'eur' }, 'invalid_currency'],
    ['a shop_url that is no http(s) link', { shop_url: 'javascript:alert(1)' }, 'invalid_shop_url'],
    ['a shop_url with credentials', { shop_url: 'https://user:pw@shop.example.com/' }, 'invalid_shop_url'],
  ])('refuses %s', (_name, change, code) => {
    spec.given([]).when({ type: 'CreateOffer', uuid: 'u1', id: 1, organizationId: 'org_a', slug: 'pro', now: 1, ...content, ...change }).thenThrows(code);
  });
  it('publishes a draft once, and archives for good', () => {
    spec.given([created]).when({ type: 'PublishOffer', now: 200 }).then([{ type: 'OfferPublished', data: { published_at: 200 } }]);
    spec.given([created, { type: 'OfferPublished', data: { published_at: 200 } }]).when({ type: 'PublishOffer', now: 300 }).then([]);
    spec.given([created]).when({ type: 'ArchiveOffer', now: 300 }).then([{ type: 'OfferArchived', data: { archived_at: 300 } }]);
    spec.given([created, { type: 'OfferArchived', data: { archived_at: 300 } }]).when({ type: 'PublishOffer', now: 400 }).thenThrows('offer_archived');
  });
  it('updates only what changed, and only within its organization', () => {
    spec.given([created]).when({ type: 'UpdateOffer', organizationId: 'org_a', now: 5, ...content }).then([]);
    spec
      .given([created])
      .when({ type: 'UpdateOffer', organizationId: 'org_a', now: 5, ...content, name: 'Pro+' })
      .then([{ type: 'OfferUpdated', data: { ...content, name: 'Pro+', price: 2400, updated_at: 5 } }]);
    spec.given([created]).when({ type: 'UpdateOffer', organizationId: 'org_b', now: 5, ...content }).thenThrows('not_found');
  });
  it('records a shop_url only when there is one, and an update without it removes it', () => {
    const shop_url = 'https://shop.example.com/';
    const withShop: OfferEvent = { type: 'OfferCreated', data: { ...created.data, shop_url } as never };
    spec.given([]).when({ type: 'CreateOffer', uuid: 'u1', id: 1, organizationId: 'org_a', slug: 'pro', now: 100, ...content, shop_url }).then([withShop]);
    spec.given([withShop]).when({ type: 'UpdateOffer', organizationId: 'org_a', now: 5, ...content, shop_url }).then([]);
    spec
      .given([withShop])
      .when({ type: 'UpdateOffer', organizationId: 'org_a', now: 5, ...content })
      .then([{ type: 'OfferUpdated', data: { ...content, price: 2400, updated_at: 5 } }]);
    const removed: OfferEvent = { type: 'OfferUpdated', data: { ...content, price: 2400, updated_at: 5 } };
    expect(offerDecider.decide({ type: 'UpdateOffer', organizationId: 'org_a', now: 6, ...content }, [withShop, removed].reduce(offerDecider.evolve, offerDecider.initialState()))).toEqual([]);
  });
});

const T0 = 1_000_000;
const sessionCreated: CheckoutSessionEvent = {
  type: 'CheckoutSessionCreated',
  data: {
    id: 'cs_1',
    organization_id: 'org_a',
    offer: { uuid: 'u1', id: 'key1', slug: 'pro', name: 'Pro plan' },
    plan: { product_id: 'p1', plan_id: 'pl1', plan_name: 'monthly' },
    lines: [{ name: 'Monthly', amount: 1900 }],
    total: 1900,
    currency: 'EUR',
    mode: 'test',
    customer: null,
    metadata: {},
    promo: null,
    promo_tier: null,
    expires_at: T0 + 1800,
    created_at: T0,
  },
};
const started: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: null, started_at: T0 + 10 } };
const attempted: CheckoutSessionEvent = { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_1', attempted_at: T0 + 20 } };
const completed: CheckoutSessionEvent = {
  type: 'CheckoutSessionCompleted',
  data: { attempt_id: 'pa_1', invoice_id: 'in_1', card: { brand: 'visa', last4: '4242' }, completed_at: T0 + 21 },
};
const expired: CheckoutSessionEvent = { type: 'CheckoutSessionExpired', data: { expired_at: T0 + 1800 } };

describe('checkout session decider', () => {
  const spec = deciderSpec(checkoutSessionDecider);
  const { id: _id, expires_at: _e, created_at: _c, ...session } = sessionCreated.data;

  it('creates an open session due after expires_in, which must be 30 minutes to 24 hours', () => {
    spec.given([]).when({ type: 'CreateSession', session: { id: 'cs_1', ...session }, expiresIn: 1800, now: T0 }).then([sessionCreated]);
    spec.given([]).when({ type: 'CreateSession', session: { id: 'cs_1', ...session }, expiresIn: 1799, now: T0 }).thenThrows('invalid_expires_in');
    spec.given([]).when({ type: 'CreateSession', session: { id: 'cs_1', ...session }, expiresIn: 86_401, now: T0 }).thenThrows('invalid_expires_in');
  });

  it('starts once: a second start records nothing', () => {
    spec.given([sessionCreated]).when({ type: 'StartSession', invoiceId: 'in_1', customer: null, now: T0 + 10 }).then([started]);
    spec.given([sessionCreated, started]).when({ type: 'StartSession', invoiceId: 'in_2', customer: null, now: T0 + 11 }).then([]);
  });

  it('refuses to start at and after the expiry second, and after completion', () => {
    spec.given([sessionCreated]).when({ type: 'StartSession', invoiceId: 'in_1', customer: null, now: T0 + 1799 }).then([
      { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: null, started_at: T0 + 1799 } },
    ]);
    spec.given([sessionCreated]).when({ type: 'StartSession', invoiceId: 'in_1', customer: null, now: T0 + 1800 }).thenThrows('session_expired');
    spec.given([sessionCreated, started, attempted, completed]).when({ type: 'StartSession', invoiceId: 'x', customer: null, now: T0 + 30 }).thenThrows('session_completed');
  });

  it('allows one payment attempt at a time; a stale attempt stops blocking', () => {
    spec.given([sessionCreated]).when({ type: 'AttemptPayment', attemptId: 'pa_1', now: T0 + 20 }).thenThrows('session_not_started');
    spec.given([sessionCreated, started]).when({ type: 'AttemptPayment', attemptId: 'pa_1', now: T0 + 20 }).then([attempted]);
    spec.given([sessionCreated, started, attempted]).when({ type: 'AttemptPayment', attemptId: 'pa_2', now: T0 + 21 }).thenThrows('payment_in_progress');
    spec.given([sessionCreated, started, attempted]).when({ type: 'AttemptPayment', attemptId: 'pa_2', now: T0 + 80 }).then([
      { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_2', attempted_at: T0 + 80 } },
    ]);
  });

  it('a decline releases the attempt; the session stays open', () => {
    const declined: CheckoutSessionEvent = {
      type: 'CheckoutSessionPaymentDeclined',
      data: { attempt_id: 'pa_1', code: 'card_declined', decline_code: 'generic_decline', card: { brand: 'visa', last4: '0002' }, declined_at: T0 + 21 },
    };
    spec
      .given([sessionCreated, started, attempted])
      .when({ type: 'DeclinePayment', attemptId: 'pa_1', code: 'card_declined', declineCode: 'generic_decline', card: { brand: 'visa', last4: '0002' }, now: T0 + 21 })
      .then([declined]);
    spec.given([sessionCreated, started, attempted, declined]).when({ type: 'AttemptPayment', attemptId: 'pa_2', now: T0 + 22 }).then([
      { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_2', attempted_at: T0 + 22 } },
    ]);
  });

  it('completes with the current attempt only, once, and then is final', () => {
    spec.given([sessionCreated, started, attempted]).when({ type: 'CompleteSession', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, now: T0 + 21 }).then([completed]);
    spec.given([sessionCreated, started, attempted, completed]).when({ type: 'CompleteSession', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, now: T0 + 22 }).then([]);
    spec.given([sessionCreated, started, attempted]).when({ type: 'CompleteSession', attemptId: 'pa_9', card: { brand: 'visa', last4: '4242' }, now: T0 + 21 }).thenThrows('payment_attempt_superseded');
    spec.given([sessionCreated, started, attempted, completed]).when({ type: 'AttemptPayment', attemptId: 'pa_2', now: T0 + 30 }).thenThrows('session_completed');
    spec.given([sessionCreated, started, attempted, completed]).when({ type: 'CancelSession', now: T0 + 30 }).thenThrows('session_completed');
    spec.given([sessionCreated, started, attempted, completed]).when({ type: 'ExpireSession', now: T0 + 5000 }).then([]);
  });

  it('completes from a paid invoice after a crash, whatever attempt is pending, but never an expired session', () => {
    const retry: CheckoutSessionEvent = { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_2', attempted_at: T0 + 90 } };
    spec
      .given([sessionCreated, started, attempted, retry])
      .when({ type: 'CompleteSession', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, now: T0 + 91, invoicePaid: true })
      .then([{ ...completed, data: { ...completed.data, completed_at: T0 + 91 } }]);
    spec
      .given([sessionCreated, started, expired])
      .when({ type: 'CompleteSession', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, now: T0 + 1900, invoicePaid: true })
      .thenThrows('payment_attempt_superseded');
  });

  it('a charge that finishes after the due time still completes the session', () => {
    spec.given([sessionCreated, started, attempted]).when({ type: 'CompleteSession', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, now: T0 + 1801 }).then([
      { ...completed, data: { ...completed.data, completed_at: T0 + 1801 } },
    ]);
  });

  it('records a cancel and stays open', () => {
    spec.given([sessionCreated]).when({ type: 'CancelSession', now: T0 + 5 }).then([{ type: 'CheckoutSessionCancelled', data: { cancelled_at: T0 + 5 } }]);
    expect(checkoutSessionDecider.evolve(checkoutSessionDecider.evolve({ status: 'none' }, sessionCreated), { type: 'CheckoutSessionCancelled', data: { cancelled_at: 1 } }).status).toBe('open');
  });

  it('refuses a cancel once the invoice is paid or while a charge is in flight', () => {
    spec.given([sessionCreated, started]).when({ type: 'CancelSession', now: T0 + 30, invoicePaid: true }).thenThrows('invoice_paid');
    spec.given([sessionCreated, started, attempted]).when({ type: 'CancelSession', now: T0 + 21 }).thenThrows('payment_in_progress');
    // A stale attempt (its process died) no longer blocks; only its paid invoice would.
    spec.given([sessionCreated, started, attempted]).when({ type: 'CancelSession', now: T0 + 90 }).then([
      { type: 'CheckoutSessionCancelled', data: { cancelled_at: T0 + 90 } },
    ]);
  });

  it('a payment claim records the customer the pay typed, in the same append', () => {
    const other: SessionCustomer = { email: 'other@example.com', name: null, user_id: null };
    const startedAsOther: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: other, started_at: T0 + 10 } };
    spec
      .given([sessionCreated, startedAsOther])
      .when({ type: 'AttemptPayment', attemptId: 'pa_1', customer: { email: 'payer@example.com' }, now: T0 + 20 })
      .then([
        { type: 'CheckoutSessionCustomerChanged', data: { customer: { email: 'payer@example.com', name: null, user_id: null }, changed_at: T0 + 20 } },
        attempted,
      ]);
    spec.given([sessionCreated, startedAsOther]).when({ type: 'AttemptPayment', attemptId: 'pa_1', customer: { email: 'other@example.com' }, now: T0 + 20 }).then([attempted]);
    spec.given([sessionCreated, startedAsOther]).when({ type: 'AttemptPayment', attemptId: 'pa_1', customer: null, now: T0 + 20 }).then([attempted]);
  });

  it('expires exactly at expires_at, not a second before, and not while a charge is in flight', () => {
    spec.given([sessionCreated]).when({ type: 'ExpireSession', now: T0 + 1799 }).then([]);
    spec.given([sessionCreated]).when({ type: 'ExpireSession', now: T0 + 1800 }).then([expired]);
    spec.given([sessionCreated, started, { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_1', attempted_at: T0 + 1790 } }]).when({ type: 'ExpireSession', now: T0 + 1800 }).then([]);
    spec.given([sessionCreated, expired]).when({ type: 'ExpireSession', now: T0 + 1900 }).then([]);
    spec.given([sessionCreated, expired]).when({ type: 'StartSession', invoiceId: 'in_1', customer: null, now: T0 + 1900 }).thenThrows('session_expired');
    spec.given([sessionCreated, expired]).when({ type: 'CancelSession', now: T0 + 1900 }).thenThrows('session_expired');
  });

  describe('a buyer who corrects their email or name before paying', () => {
    const typo: SessionCustomer = { email: 'ada@exmaple.com', name: 'Ada', user_id: null };
    const startedAsTypo: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: typo, started_at: T0 + 10 } };
    const declined: CheckoutSessionEvent = {
      type: 'CheckoutSessionPaymentDeclined',
      data: { attempt_id: 'pa_1', code: 'card_declined', decline_code: 'generic_decline', card: null, declined_at: T0 + 21 },
    };
    const afterDecline = [sessionCreated, startedAsTypo, attempted, declined];
    const changed = (customer: SessionCustomer, at: number): CheckoutSessionEvent => ({
      type: 'CheckoutSessionCustomerChanged',
      data: { customer, changed_at: at },
    });

    it('records the corrected email, keeping the name that was not retyped', () => {
      spec
        .given(afterDecline)
        .when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 30 })
        .then([changed({ email: 'ada@example.com', name: 'Ada', user_id: null }, T0 + 30)]);
      spec
        .given(afterDecline)
        .when({ type: 'StartSession', invoiceId: 'in_2', customer: { name: 'Ada Lovelace' }, now: T0 + 30 })
        .then([changed({ ...typo, name: 'Ada Lovelace' }, T0 + 30)]);
    });

    it('records nothing for the same values again, nor for a start that names nothing', () => {
      spec.given(afterDecline).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: typo.email!, name: 'Ada' }, now: T0 + 30 }).then([]);
      spec.given(afterDecline).when({ type: 'StartSession', invoiceId: 'in_2', customer: {}, now: T0 + 30 }).then([]);
      spec.given(afterDecline).when({ type: 'StartSession', invoiceId: 'in_2', customer: null, now: T0 + 30 }).then([]);
      const corrected = changed({ ...typo, email: 'ada@example.com' }, T0 + 30);
      spec.given([...afterDecline, corrected]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 31 }).then([]);
    });

    it("keeps a signed identity's verified email; only its name changes", () => {
      const verified: SessionCustomer = { email: 'ada@example.com', name: null, user_id: 'u_1' };
      const signedSession: CheckoutSessionEvent = { ...sessionCreated, data: { ...sessionCreated.data, customer: verified } } as CheckoutSessionEvent;
      const signedStart: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: null, started_at: T0 + 10 } };
      spec.given([signedSession, signedStart]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'mallory@example.com' }, now: T0 + 30 }).then([]);
      spec
        .given([signedSession, signedStart])
        .when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'mallory@example.com', name: 'Ada' }, now: T0 + 30 })
        .then([changed({ ...verified, name: 'Ada' }, T0 + 30)]);
    });

    it('lets the buyer correct a typed email of a signed identity whose token carried none', () => {
      const unverified: SessionCustomer = { email: null, name: null, user_id: 'u_1' };
      const signedSession: CheckoutSessionEvent = { ...sessionCreated, data: { ...sessionCreated.data, customer: unverified } } as CheckoutSessionEvent;
      const typedStart: CheckoutSessionEvent = {
        type: 'CheckoutSessionStarted',
        data: { invoice_id: 'in_1', customer: { ...unverified, email: 'ada@exmaple.com' }, started_at: T0 + 10 },
      };
      spec
        .given([signedSession, typedStart])
        .when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 30 })
        .then([changed({ ...unverified, email: 'ada@example.com' }, T0 + 30)]);
    });

    it('refuses a change while a charge is in flight, and after completion or expiry', () => {
      spec.given([sessionCreated, startedAsTypo, attempted]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 21 }).thenThrows('payment_in_progress');
      spec.given([sessionCreated, startedAsTypo, attempted]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: typo.email! }, now: T0 + 21 }).then([]);
      spec.given([sessionCreated, startedAsTypo, attempted, completed]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 30 }).thenThrows('session_completed');
      spec.given([...afterDecline, expired]).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 1900 }).thenThrows('session_expired');
      spec.given(afterDecline).when({ type: 'StartSession', invoiceId: 'in_2', customer: { email: 'ada@example.com' }, now: T0 + 1800 }).thenThrows('session_expired');
    });
  });

  it('reads as expired from the due second on', () => {
    expect(effectiveStatus('open', 100, 99)).toBe('open');
    expect(effectiveStatus('open', 100, 100)).toBe('expired');
    expect(effectiveStatus('completed', 100, 200)).toBe('completed');
  });
});

describe('invoice decider', () => {
  const spec = deciderSpec(invoiceDecider);
  const invoiceCreated: InvoiceEvent = {
    type: 'InvoiceCreated',
    data: {
      id: 'in_1',
      number: 7,
      organization_id: 'org_a',
      session_id: 'cs_1',
      lines: [{ name: 'Monthly', amount: 1900 }, { name: 'Setup', amount: 500 }],
      total: 2400,
      currency: 'EUR',
      customer: null,
      created_at: T0,
    },
  };
  const paid: InvoiceEvent = { type: 'InvoicePaid', data: { attempt_id: 'pa_1', card: { brand: 'visa', last4: '4242' }, paid_at: T0 + 1 } };
  const { total: _t, created_at: _c, ...invoice } = invoiceCreated.data;

  it('is created once with the total of its lines', () => {
    spec.given([]).when({ type: 'CreateInvoice', invoice, now: T0 }).then([invoiceCreated]);
    spec.given([invoiceCreated]).when({ type: 'CreateInvoice', invoice, now: T0 }).then([]);
  });
  it('open → paid, once; a paid invoice is neither paid again nor voided', () => {
    spec.given([invoiceCreated]).when({ type: 'PayInvoice', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, customer: null, now: T0 + 1 }).then([paid]);
    spec.given([invoiceCreated, paid]).when({ type: 'PayInvoice', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, customer: null, now: T0 + 2 }).then([]);
    spec.given([invoiceCreated, paid]).when({ type: 'PayInvoice', attemptId: 'pa_2', card: { brand: 'visa', last4: '4242' }, customer: null, now: T0 + 2 }).thenThrows('invoice_paid');
    spec.given([invoiceCreated, paid]).when({ type: 'VoidInvoice', reason: 'session_expired', now: T0 + 2 }).thenThrows('invoice_paid');
  });
  describe('customer', () => {
    const ada: SessionCustomer = { email: 'ada@example.com', name: 'Ada', user_id: null };
    const changed: InvoiceEvent = { type: 'InvoiceCustomerChanged', data: { customer: ada, changed_at: T0 + 3 } };
    const card = { brand: 'visa', last4: '4242' };

    it('follows the session while open, once per change', () => {
      spec.given([invoiceCreated]).when({ type: 'ChangeInvoiceCustomer', customer: ada, now: T0 + 3 }).then([changed]);
      spec.given([invoiceCreated, changed]).when({ type: 'ChangeInvoiceCustomer', customer: ada, now: T0 + 4 }).then([]);
    });
    it('is final once paid or void', () => {
      spec.given([invoiceCreated, paid]).when({ type: 'ChangeInvoiceCustomer', customer: ada, now: T0 + 3 }).thenThrows('invoice_paid');
      const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { voided_at: T0 + 2, reason: 'session_expired' } };
      spec.given([invoiceCreated, voided]).when({ type: 'ChangeInvoiceCustomer', customer: ada, now: T0 + 3 }).thenThrows('invoice_void');
    });
    it('is paid made out to the customer the charge was claimed for, in the same append', () => {
      spec
        .given([invoiceCreated])
        .when({ type: 'PayInvoice', attemptId: 'pa_1', card, customer: ada, now: T0 + 1 })
        .then([{ type: 'InvoiceCustomerChanged', data: { customer: ada, changed_at: T0 + 1 } }, paid]);
      spec.given([invoiceCreated, changed]).when({ type: 'PayInvoice', attemptId: 'pa_1', card, customer: ada, now: T0 + 1 }).then([paid]);
    });
  });
  it('open → void; a void invoice cannot be paid', () => {
    const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { voided_at: T0 + 5, reason: 'session_expired' } };
    spec.given([invoiceCreated]).when({ type: 'VoidInvoice', reason: 'session_expired', now: T0 + 5 }).then([voided]);
    spec.given([invoiceCreated, voided]).when({ type: 'PayInvoice', attemptId: 'pa_1', card: { brand: 'visa', last4: '4242' }, customer: null, now: T0 + 6 }).thenThrows('invoice_void');
  });
});
