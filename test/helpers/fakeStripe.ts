import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/*
 * A stand-in for Stripe on loopback, for machines that cannot reach Stripe. It answers only the
 * calls this service makes, with the shapes of Stripe's API reference
 * (https://docs.stripe.com/api): PaymentIntents create / retrieve (expand[]=latest_charge) /
 * confirm / cancel (from the statuses Stripe allows it, else 400 payment_intent_unexpected_state),
 * off-session charges of Stripe's test PaymentMethods (create with confirm and off_session:
 * `pm_card_visa`, `pm_card_mastercard` succeed, `pm_card_chargeCustomerFail` is declined,
 * `pm_card_authenticationRequired` needs the buyer: 402 card_error, as Stripe answers),
 * Customers create, SetupIntents create / retrieve (expand[]=payment_method) / confirm / cancel,
 * PaymentIntents made with a `customer` and `setup_future_usage: off_session` whose confirmation
 * saves a PaymentMethod on that customer (https://docs.stripe.com/payments/save-during-payment,
 * https://docs.stripe.com/api/setup_intents/object); such a saved method is charged off-session only
 * with its customer (else 400 resource_missing, as Stripe refuses another customer's method), and
 * behaves as the test card it was made from: 4242… pays, 4000 0000 0000 0341 is declined and
 * 4000 0027 6000 3184 needs the buyer (`authentication_required`,
 * https://docs.stripe.com/payments/cards/charging-saved-cards), until confirmed on-session.
 * Refunds create, Charges retrieve, each under the account of the secret key that calls
 * it (another account's objects answer 404 resource_missing, as Stripe does), with idempotency
 * keys replayed. It also serves a stand-in for Stripe.js (`/v3/`) implementing only `Stripe(pk)`,
 * `elements({clientSecret})`, `create('payment')`, `mount`, `confirmPayment`, `confirmSetup` and
 * `confirmCardPayment(clientSecret)` (a PaymentIntent on a saved method, which the buyer
 * authenticates; the stand-in's "authentication" always passes): its Payment
 * Element is a frame of this origin, which sends the card here, never to the page that mounts it.
 */

export type FakeAccount = { secretKey: string; publishableKey: string; webhookSecret: string };
type Obj = Record<string, unknown>;
type Call = { method: string; path: string; account: string | null; idempotencyKey: string | null; body: Record<string, string> };

/** The statuses from which Stripe lets a PaymentIntent be cancelled. */
const CANCELABLE = new Set(['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing']);
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding (`metadata[a]=b`, `expand[0]=x`), flattened to `key → value`. */
function form(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

const nested = (body: Record<string, string>, name: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(body)
      .filter(([k]) => k.startsWith(`${name}[`))
      .map(([k, v]) => [k.slice(name.length + 1, -1), v]),
  );

const STRIPE_JS = `(function () {
  var origin = new URL(document.currentScript.src).origin;
  window.Stripe = function (publishableKey) {
    return {
      elements: function (options) {
        var elements = { clientSecret: options.clientSecret, frame: null };
        elements.create = function (type) {
          if (type !== 'payment') throw new Error('this stand-in makes only the payment element');
          return {
            mount: function (target) {
              var host = typeof target === 'string' ? document.querySelector(target) : target;
              var frame = document.createElement('iframe');
              frame.name = 'stripe-payment-element';
              frame.title = 'Secure payment input frame';
              frame.src = origin + '/elements-inner.html';
              frame.style.cssText = 'border:0;width:100%;height:60px';
              host.appendChild(frame);
              elements.frame = frame;
            },
          };
        };
        return elements;
      },
      // Each takes only its own kind of client secret, as Stripe.js does.
      confirmPayment: function (options) {
        if (options.elements.clientSecret.indexOf('pi_') !== 0) return Promise.resolve(wrongSecret('confirmPayment', 'PaymentIntent'));
        return confirmIn(options.elements.frame, options.elements.clientSecret, options.confirmParams.return_url, options.redirect);
      },
      confirmSetup: function (options) {
        if (options.elements.clientSecret.indexOf('seti_') !== 0) return Promise.resolve(wrongSecret('confirmSetup', 'SetupIntent'));
        return confirmIn(options.elements.frame, options.elements.clientSecret, options.confirmParams.return_url, options.redirect);
      },
      // A PaymentIntent made on a saved PaymentMethod: nothing to type, the bank's challenge only.
      confirmCardPayment: function (clientSecret) {
        var frame = document.createElement('iframe');
        frame.title = 'Secure authentication frame';
        frame.style.cssText = 'border:0;width:0;height:0';
        frame.src = origin + '/elements-inner.html';
        return new Promise(function (resolve) {
          frame.onload = function () { confirmIn(frame, clientSecret, '', 'if_required').then(resolve); };
          document.body.appendChild(frame);
        });
      },
    };
    function wrongSecret(method, kind) {
      return { error: { type: 'invalid_request_error', message: 'Invalid value for ' + method + ': clientSecret should be a ' + kind + ' client secret.' } };
    }
    function confirmIn(frame, clientSecret, returnUrl, redirect) {
      return new Promise(function (resolve) {
        var channel = new MessageChannel();
        channel.port1.onmessage = function (e) { resolve(e.data); };
        frame.contentWindow.postMessage(
          { type: 'confirm', clientSecret: clientSecret, publishableKey: publishableKey, returnUrl: returnUrl, redirect: redirect },
          origin,
          [channel.port2],
        );
      });
    }
  };
})();`;

const ELEMENTS_INNER = `<!doctype html><meta charset="utf-8"><input id="cardnumber" name="cardnumber" autocomplete="cc-number" placeholder="Card number" style="width:95%">
<script>
window.addEventListener('message', function (e) {
  var d = e.data;
  if (!d || d.type !== 'confirm' || !e.ports[0]) return;
  var port = e.ports[0];
  var intent = d.clientSecret.split('_secret_')[0];
  var setup = intent.indexOf('seti_') === 0;
  var body = new URLSearchParams({ client_secret: d.clientSecret, key: d.publishableKey, return_url: d.returnUrl });
  var number = document.getElementById('cardnumber').value;
  if (number) { body.set('payment_method_data[type]', 'card'); body.set('payment_method_data[card][number]', number); }
  fetch((setup ? '/v1/setup_intents/' : '/v1/payment_intents/') + intent + '/confirm', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body })
    .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
    .then(function (r) {
      if (!r.ok) return port.postMessage({ error: r.j.error });
      var error = setup ? r.j.last_setup_error : r.j.last_payment_error;
      var key = setup ? 'setupIntent' : 'paymentIntent';
      var answer = {};
      if (error) { answer.error = error; answer[key] = r.j; return port.postMessage(answer); }
      answer[key] = { id: r.j.id, status: r.j.status };
      port.postMessage(answer);
    });
});
</script>`;

export type FakeStripe = {
  url: string;
  port: number;
  /** STRIPE_* settings pointing the service at this server. */
  env: Record<string, string>;
  calls: Call[];
  account(): FakeAccount;
  paymentIntent(id: string): Obj | undefined;
  setupIntent(id: string): Obj | undefined;
  customer(id: string): Obj | undefined;
  charge(id: string): Obj | undefined;
  /**
   * Confirms an intent as the buyer's browser would through Stripe.js with a test card number
   * (4242…, 4000 0000 0000 0341, 4000 0027 6000 3184): saves the method on the intent's customer
   * when the intent asks to. An empty number confirms the intent's saved method (the bank's check passes).
   */
  confirm(intentId: string, cardNumber: string): Promise<Obj>;
  /**
   * Makes a PaymentIntent succeed (as a buyer paying with 4242… would), with its charge, whatever
   * its status: a payment that reached Stripe before anything here cancelled it.
   */
  succeed(paymentIntentId: string, card?: { brand: string; last4: string }): Obj;
  /** A refund made in Stripe's dashboard: the charge's amount_refunded grows. */
  refundInDashboard(chargeId: string, amount: number): Obj;
  /** What later off-session charges of a saved method do (the buyer's bank changed its mind). */
  setOffSession(paymentMethodId: string, outcome: 'succeed' | 'decline' | 'authenticate'): void;
  /** Runs `work` while the next off-session charge of the method is in flight, before Stripe answers it: a race made deterministic. */
  duringNextOffSessionCharge(paymentMethodId: string, work: () => Promise<void>): void;
  /** A signed event as Stripe would POST it: the body and its Stripe-Signature header, made with the SDK. */
  signedEvent(account: FakeAccount, type: string, object: Obj, eventId?: string): { body: string; signature: string; id: string };
  close(): Promise<void>;
};

export async function startFakeStripe(): Promise<FakeStripe> {
  const accounts = new Map<string, FakeAccount>();
  const intents = new Map<string, Obj & { account: string }>();
  const charges = new Map<string, Obj & { account: string }>();
  const customers = new Map<string, Obj & { account: string }>();
  const setups = new Map<string, Obj & { account: string }>();
  /** PaymentMethods saved by a confirmation, with what an off-session charge of them does. */
  const methods = new Map<string, { account: string; customer: string | null; card: { brand: string; last4: string }; offSession: 'succeed' | 'decline' | 'authenticate' }>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let duringOffSession: { method: string; work: () => Promise<void> } | null = null;
  const calls: Call[] = [];
  const sdk = new Stripe('sk_test_unused_for_signing');

  const strip = (o: Obj & { account: string }): Obj => {
    const { account: _account, ...rest } = o;
    return rest;
  };
  const missing = (res: ServerResponse, kind: string, what: string) =>
    send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${what}'`, param: 'id' } });
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  };

  // Stripe's answer to a confirm or cancel that the PaymentIntent's status no longer allows.
  const unexpectedBody = (intent: Obj, verb: string) => ({
    error: {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: `You cannot ${verb} this PaymentIntent because it has a status of ${String(intent.status)}.`,
      payment_intent: strip(intent as Obj & { account: string }),
    },
  });
  const unexpectedState = (res: ServerResponse, intent: Obj, verb: string) => send(res, 400, unexpectedBody(intent, verb));

  function makeCharge(account: string, intent: Obj, card: { brand: string; last4: string }): Obj & { account: string } {
    const charge = {
      account,
      id: id('ch'),
      object: 'charge',
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      paid: true,
      refunded: false,
      status: 'succeeded',
      payment_intent: intent.id,
      metadata: { ...(intent.metadata as Obj) },
      payment_method_details: { type: 'card', card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2034, country: 'US' } },
      created: now(),
      livemode: false,
    };
    charges.set(charge.id, charge);
    return charge;
  }

  function succeed(intentId: string, card = { brand: 'visa', last4: '4242' }): Obj {
    const intent = intents.get(intentId)!;
    const charge = makeCharge(intent.account, intent, card);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge.id, last_payment_error: null });
    return strip(intent);
  }

  /** Stripe's test cards as a confirmation takes them: the card, and what later off-session charges of it do. */
  const TEST_CARDS: Record<string, { brand: string; last4: string; offSession: 'succeed' | 'decline' | 'authenticate' }> = {
    '4242424242424242': { brand: 'visa', last4: '4242', offSession: 'succeed' },
    '5555555555554444': { brand: 'mastercard', last4: '4444', offSession: 'succeed' },
    '4000000000000341': { brand: 'visa', last4: '0341', offSession: 'decline' },
    '4000002760003184': { brand: 'visa', last4: '3184', offSession: 'authenticate' },
  };

  /** A PaymentMethod made by a confirmation, attached to the customer when the intent saves it. */
  function saveMethod(account: string, customer: string | null, card: (typeof TEST_CARDS)[string]): string {
    const pm = id('pm');
    methods.set(pm, { account, customer, card: { brand: card.brand, last4: card.last4 }, offSession: card.offSession });
    return pm;
  }

  const methodObject = (pm: string): Obj => {
    const m = methods.get(pm)!;
    return { id: pm, object: 'payment_method', type: 'card', customer: m.customer, card: { brand: m.card.brand, last4: m.card.last4, exp_month: 12, exp_year: 2034, country: 'US' }, livemode: false };
  };

  function refund(chargeId: string, amount: number): Obj {
    const charge = charges.get(chargeId)!;
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return { id: id('re'), object: 'refund', amount, charge: chargeId, payment_intent: charge.payment_intent, currency: charge.currency, status: 'succeeded', created: now(), metadata: {} };
  }

  /** A PaymentIntent as Stripe makes one from a create call's form fields, before any confirmation. */
  function newIntent(account: string, body: Record<string, string>) {
    const intentId = id('pi');
    return {
      account,
      id: intentId,
      object: 'payment_intent',
      amount: Number(body.amount),
      amount_received: 0,
      currency: body.currency,
      status: 'requires_payment_method',
      client_secret: `${intentId}_secret_${randomBytes(12).toString('hex')}`,
      metadata: nested(body, 'metadata'),
      description: body.description ?? null,
      customer: body.customer ?? null,
      payment_method: body.payment_method ?? null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      payment_method_types: ['card'],
      latest_charge: null,
      last_payment_error: null as Obj | null,
      livemode: false,
      created: now(),
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, text: string) {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.pathname === '/v3/') {
      res.writeHead(200, { 'content-type': 'application/javascript' });
      return res.end(STRIPE_JS);
    }
    if (req.method === 'GET' && url.pathname === '/elements-inner.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(ELEMENTS_INNER);
    }
    const body = form(text);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    calls.push({ method: req.method!, path: url.pathname, account: bearer, idempotencyKey, body });

    // Stripe.js's confirm: authorised by the publishable key and the client secret, not a secret key.
    const confirm = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(url.pathname);
    if (req.method === 'POST' && confirm) {
      const intent = intents.get(confirm[1]!);
      const account = [...accounts.values()].find((a) => a.publishableKey === body.key);
      if (!intent || !account || intent.account !== account.secretKey || intent.client_secret !== body.client_secret) return missing(res, 'payment_intent', confirm[1]!);
      if (intent.status === 'canceled' || intent.status === 'succeeded') return unexpectedState(res, intent, 'confirm');
      const number = body['payment_method_data[card][number]'] ?? '';
      // A PaymentIntent on a saved method, confirmed by its buyer: the bank's challenge passes.
      const saved = typeof intent.payment_method === 'string' && !number ? methods.get(intent.payment_method) : undefined;
      if (saved) return send(res, 200, succeed(intent.id as string, saved.card));
      const card = TEST_CARDS[number];
      if (card && (number === '4242424242424242' || intent.setup_future_usage === 'off_session')) {
        const pm = saveMethod(intent.account, intent.setup_future_usage === 'off_session' ? ((intent.customer as string | null) ?? null) : null, card);
        intent.payment_method = pm;
        return send(res, 200, succeed(intent.id as string, card));
      }
      Object.assign(intent, {
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
      });
      return send(res, 200, strip(intent));
    }

    const confirmSetup = /^\/v1\/setup_intents\/([^/]+)\/confirm$/.exec(url.pathname);
    if (req.method === 'POST' && confirmSetup) {
      const setup = setups.get(confirmSetup[1]!);
      const owner = [...accounts.values()].find((a) => a.publishableKey === body.key);
      if (!setup || !owner || setup.account !== owner.secretKey || setup.client_secret !== body.client_secret) return missing(res, 'setup_intent', confirmSetup[1]!);
      if (setup.status === 'canceled' || setup.status === 'succeeded') {
        return send(res, 400, { error: { type: 'invalid_request_error', code: 'setup_intent_unexpected_state', message: `You cannot confirm this SetupIntent because it has a status of ${String(setup.status)}.` } });
      }
      const card = TEST_CARDS[body['payment_method_data[card][number]'] ?? ''];
      if (card) {
        Object.assign(setup, { status: 'succeeded', payment_method: saveMethod(setup.account, (setup.customer as string | null) ?? null, card), last_setup_error: null });
      } else {
        Object.assign(setup, { status: 'requires_payment_method', last_setup_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } });
      }
      return send(res, 200, strip(setup));
    }

    const account = bearer && accounts.has(bearer) ? bearer : null;
    if (!account) return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    const replayKey = idempotencyKey ? `${account}:${idempotencyKey}` : null;
    if (req.method === 'POST' && replayKey && idempotent.has(replayKey)) {
      const first = idempotent.get(replayKey)!;
      res.setHeader('idempotent-replayed', 'true');
      return send(res, first.status, first.body);
    }
    const answer = (status: number, payload: unknown) => {
      if (req.method === 'POST' && replayKey) idempotent.set(replayKey, { status, body: payload });
      return send(res, status, payload);
    };

    if (req.method === 'POST' && url.pathname === '/v1/payment_intents' && body.confirm === 'true' && body.off_session === 'true') {
      const inFlight = duringOffSession?.method === body.payment_method ? duringOffSession : null;
      if (inFlight) {
        duringOffSession = null;
        await inFlight.work();
      }
      const intent = newIntent(account, body);
      const intentId = intent.id;
      intents.set(intentId, intent);
      const cards: Record<string, { brand: string; last4: string }> = {
        pm_card_visa: { brand: 'visa', last4: '4242' },
        pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
      };
      const saved = methods.get(body.payment_method ?? '');
      if (saved && (saved.account !== account || saved.customer !== (body.customer ?? null))) {
        // Stripe reuses a saved method only with the customer it is attached to.
        return answer(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${body.payment_method ?? ''}'`, param: 'payment_method' } });
      }
      const card = saved?.offSession === 'succeed' ? saved.card : cards[body.payment_method ?? ''];
      if (card) {
        const paid = succeed(intentId, card);
        const expand = Object.entries(body).some(([k, v]) => k.startsWith('expand') && v === 'latest_charge');
        return answer(200, expand ? { ...paid, latest_charge: strip(charges.get(paid.latest_charge as string)!) } : paid);
      }
      const error =
        body.payment_method === 'pm_card_authenticationRequired' || saved?.offSession === 'authenticate'
          ? { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' }
          : body.payment_method === 'pm_card_chargeCustomerFail' || saved?.offSession === 'decline'
            ? { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' }
            : null;
      if (!error) return answer(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${body.payment_method ?? ''}'`, param: 'payment_method' } });
      intent.last_payment_error = error;
      return answer(402, { error: { ...error, payment_intent: strip(intent) } });
    }
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      const intent = {
        ...newIntent(account, body),
        receipt_email: body.receipt_email ?? null,
        setup_future_usage: body.setup_future_usage ?? null,
        automatic_payment_methods: body['automatic_payment_methods[enabled]'] === 'true' ? { enabled: true, allow_redirects: 'always' } : null,
      };
      const intentId = intent.id;
      if (intent.customer && !customers.has(intent.customer)) return answer(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${intent.customer}'`, param: 'customer' } });
      if (intent.payment_method && methods.get(intent.payment_method)?.customer !== intent.customer) {
        return answer(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${intent.payment_method}'`, param: 'payment_method' } });
      }
      if (intent.payment_method) intent.status = 'requires_confirmation';
      intents.set(intentId, intent);
      return answer(200, strip(intent));
    }
    if (req.method === 'POST' && url.pathname === '/v1/customers') {
      const customer = { account, id: id('cus'), object: 'customer', email: body.email ?? null, name: body.name ?? null, metadata: nested(body, 'metadata'), created: now(), livemode: false };
      customers.set(customer.id, customer);
      return answer(200, strip(customer));
    }
    if (req.method === 'POST' && url.pathname === '/v1/setup_intents') {
      if (body.customer && !customers.has(body.customer)) return answer(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${body.customer}'`, param: 'customer' } });
      const setupId = id('seti');
      const setup = {
        account,
        id: setupId,
        object: 'setup_intent',
        client_secret: `${setupId}_secret_${randomBytes(12).toString('hex')}`,
        customer: body.customer ?? null,
        usage: body.usage ?? 'off_session',
        description: body.description ?? null,
        metadata: nested(body, 'metadata'),
        automatic_payment_methods: body['automatic_payment_methods[enabled]'] === 'true' ? { enabled: true, allow_redirects: 'always' } : null,
        payment_method: null as string | null,
        payment_method_types: ['card'],
        last_setup_error: null,
        next_action: null,
        cancellation_reason: null,
        status: 'requires_payment_method',
        livemode: false,
        created: now(),
      };
      setups.set(setupId, setup);
      return answer(200, strip(setup));
    }
    const setupPath = /^\/v1\/setup_intents\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && setupPath) {
      const setup = setups.get(setupPath[1]!);
      if (!setup || setup.account !== account) return missing(res, 'setup_intent', setupPath[1]!);
      const expand = [...url.searchParams.entries()].some(([k, v]) => k.startsWith('expand') && v === 'payment_method');
      const pm = setup.payment_method as string | null;
      return send(res, 200, { ...strip(setup), payment_method: pm && expand ? methodObject(pm) : pm });
    }
    const setupCancel = /^\/v1\/setup_intents\/([^/]+)\/cancel$/.exec(url.pathname);
    if (req.method === 'POST' && setupCancel) {
      const setup = setups.get(setupCancel[1]!);
      if (!setup || setup.account !== account) return missing(res, 'setup_intent', setupCancel[1]!);
      if (setup.status === 'succeeded' || setup.status === 'canceled') {
        return answer(400, { error: { type: 'invalid_request_error', code: 'setup_intent_unexpected_state', message: `You cannot cancel this SetupIntent because it has a status of ${String(setup.status)}.` } });
      }
      Object.assign(setup, { status: 'canceled', cancellation_reason: body.cancellation_reason ?? null });
      return answer(200, strip(setup));
    }
    const intentPath = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && intentPath) {
      const intent = intents.get(intentPath[1]!);
      if (!intent || intent.account !== account) return missing(res, 'payment_intent', intentPath[1]!);
      const expand = [...url.searchParams.entries()].some(([k, v]) => k.startsWith('expand') && v === 'latest_charge');
      const latest = typeof intent.latest_charge === 'string' && expand ? strip(charges.get(intent.latest_charge)!) : intent.latest_charge;
      return send(res, 200, { ...strip(intent), latest_charge: latest });
    }
    const cancelPath = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(url.pathname);
    if (req.method === 'POST' && cancelPath) {
      const intent = intents.get(cancelPath[1]!);
      if (!intent || intent.account !== account) return missing(res, 'payment_intent', cancelPath[1]!);
      if (!CANCELABLE.has(intent.status as string)) return answer(400, unexpectedBody(intent, 'cancel'));
      Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: body.cancellation_reason ?? null });
      return answer(200, strip(intent));
    }
    const chargePath = /^\/v1\/charges\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && chargePath) {
      const charge = charges.get(chargePath[1]!);
      if (!charge || charge.account !== account) return missing(res, 'charge', chargePath[1]!);
      return send(res, 200, strip(charge));
    }
    if (req.method === 'POST' && url.pathname === '/v1/refunds') {
      // Stripe refunds a PaymentIntent's charge, or a charge named directly.
      const direct = body.charge ? charges.get(body.charge) : undefined;
      if (body.charge && (!direct || direct.account !== account)) return missing(res, 'charge', body.charge);
      const intent = direct ? intents.get(direct.payment_intent as string) : intents.get(body.payment_intent ?? '');
      if (!intent || intent.account !== account) return missing(res, 'payment_intent', body.payment_intent ?? '');
      const charge = direct ?? charges.get(intent.latest_charge as string);
      if (!charge) return answer(400, { error: { type: 'invalid_request_error', code: 'charge_not_refundable', message: 'This PaymentIntent has no successful charge to refund.' } });
      const left = (charge.amount as number) - (charge.amount_refunded as number);
      const amount = body.amount ? Number(body.amount) : left;
      if (amount > left) return answer(400, { error: { type: 'invalid_request_error', code: 'amount_too_large', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, param: 'amount' } });
      return answer(200, refund(charge.id as string, amount));
    }
    return send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname}).` } });
  }

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      handle(req, res, text).catch((error: unknown) => send(res, 500, { error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    env: { STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: String(port), STRIPE_API_PROTOCOL: 'http', STRIPE_JS_URL: `${url}/v3/` },
    calls,
    account() {
      const account = {
        secretKey: `sk_test_${randomBytes(16).toString('hex')}`,
        publishableKey: `pk_test_${randomBytes(16).toString('hex')}`,
        webhookSecret: `whsec_${randomBytes(24).toString('base64').replace(/[+/=]/g, 'x')}`,
      };
      accounts.set(account.secretKey, account);
      return account;
    },
    paymentIntent: (pi) => {
      const found = intents.get(pi);
      return found && strip(found);
    },
    charge: (ch) => {
      const found = charges.get(ch);
      return found && strip(found);
    },
    setupIntent: (seti) => {
      const found = setups.get(seti);
      return found && strip(found);
    },
    customer: (cus) => {
      const found = customers.get(cus);
      return found && strip(found);
    },
    async confirm(intentId, cardNumber) {
      const setup = intentId.startsWith('seti_');
      const intent = setup ? setups.get(intentId) : intents.get(intentId);
      if (!intent) throw new Error(`no such intent ${intentId}`);
      const key = [...accounts.values()].find((a) => a.secretKey === intent.account)!.publishableKey;
      const response = await fetch(`${url}/v1/${setup ? 'setup_intents' : 'payment_intents'}/${intentId}/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        // No number: the intent's own saved method, as confirmCardPayment(clientSecret) confirms it.
        body: new URLSearchParams({ client_secret: String(intent.client_secret), key, ...(cardNumber ? { 'payment_method_data[type]': 'card', 'payment_method_data[card][number]': cardNumber } : {}) }),
      });
      return (await response.json()) as Obj;
    },
    succeed,
    setOffSession(paymentMethodId, outcome) {
      const method = methods.get(paymentMethodId);
      if (!method) throw new Error(`no saved method ${paymentMethodId}`);
      method.offSession = outcome;
    },
    duringNextOffSessionCharge(paymentMethodId, work) {
      duringOffSession = { method: paymentMethodId, work };
    },
    refundInDashboard: refund,
    signedEvent(account, type, object, eventId = id('evt')) {
      const body = JSON.stringify({ id: eventId, object: 'event', api_version: '2026-10-28.endive', created: now(), livemode: false, pending_webhooks: 1, type, data: { object } }, null, 2);
      return { body, signature: sdk.webhooks.generateTestHeaderString({ payload: body, secret: account.webhookSecret }), id: eventId };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
