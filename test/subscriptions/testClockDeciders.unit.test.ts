import { describe, it } from 'vitest';
import { checkoutSessionDecider, type CheckoutSessionEvent } from '../../modules/checkout/domain/checkoutSession.ts';
import { testClockDecider, type TestClockEvent, type TestClockState } from '../../modules/subscriptions/domain/testClock.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const T0 = 1_801_396_800;
const created: TestClockEvent = { type: 'TestClockCreated', data: { id: 'clock_1', organization_id: 'org_a', name: 'Renewals', frozen_time: T0, created_at: 100 } };
const started: TestClockEvent = { type: 'TestClockAdvanceStarted', data: { frozen_time: T0 + 86_400, previous_time: T0, started_at: 101 } };
const advanced: TestClockEvent = { type: 'TestClockAdvanced', data: { frozen_time: T0 + 86_400, completed_at: 102 } };
const deleted: TestClockEvent = { type: 'TestClockDeleted', data: { deleted_at: 103 } };

describe('test clock decider', () => {
  const spec = deciderSpec(testClockDecider);
  it('creates a clock once, at a whole Unix second', () => {
    spec.given([]).when({ type: 'CreateTestClock', id: 'clock_1', organizationId: 'org_a', name: 'Renewals', frozenTime: T0, now: 100 }).then([created]);
    spec.given([created]).when({ type: 'CreateTestClock', id: 'clock_1', organizationId: 'org_a', name: null, frozenTime: T0, now: 100 }).thenThrows('test_clock_exists');
    for (const frozenTime of [-1, 1.5, Number.NaN, 253_402_300_800]) {
      spec.given([]).when({ type: 'CreateTestClock', id: 'clock_1', organizationId: 'org_a', name: null, frozenTime, now: 100 }).thenThrows('invalid_frozen_time');
    }
  });
  it('advances forward only, one advance at a time', () => {
    spec.given([created]).when({ type: 'AdvanceTestClock', frozenTime: T0 + 86_400, now: 101 }).then([started]);
    spec.given([created]).when({ type: 'AdvanceTestClock', frozenTime: T0, now: 101 }).thenThrows('test_clock_backwards');
    spec.given([created]).when({ type: 'AdvanceTestClock', frozenTime: T0 - 1, now: 101 }).thenThrows('test_clock_backwards');
    spec.given([created, started]).when({ type: 'AdvanceTestClock', frozenTime: T0 + 2 * 86_400, now: 101 }).thenThrows('test_clock_advancing');
    spec.given([created, started, advanced])
      .when({ type: 'AdvanceTestClock', frozenTime: T0 + 2 * 86_400, now: 104 })
      .then([{ type: 'TestClockAdvanceStarted', data: { frozen_time: T0 + 2 * 86_400, previous_time: T0 + 86_400, started_at: 104 } }]);
  });
  it('finishes an advance once; a finish of a ready or deleted clock records nothing', () => {
    spec.given([created, started]).when({ type: 'FinishAdvance', now: 102 }).then([advanced]);
    spec.given([created, started, advanced]).when({ type: 'FinishAdvance', now: 103 }).then([]);
    spec.given([created, started, deleted]).when({ type: 'FinishAdvance', now: 104 }).then([]);
  });
  it('deletes a clock once; a deleted or unknown clock is not found', () => {
    spec.given([created, started]).when({ type: 'DeleteTestClock', now: 103 }).then([deleted]);
    spec.given([created, deleted]).when({ type: 'DeleteTestClock', now: 104 }).thenThrows('not_found');
    spec.given([created, deleted]).when({ type: 'AdvanceTestClock', frozenTime: T0 + 60, now: 104 }).thenThrows('not_found');
    spec.given([]).when({ type: 'AdvanceTestClock', frozenTime: T0 + 60, now: 104 }).thenThrows('not_found');
  });
});

describe('checkout session decider: recurring plans and clocks', () => {
  const spec = deciderSpec(checkoutSessionDecider);
  const session = {
    id: 'cs_1',
    organization_id: 'org_a',
    offer: { uuid: 'u1', id: 'o1', slug: 'pro', name: 'Pro' },
    plan: { product_id: 'p1', plan_id: 'pl1', plan_name: 'monthly' },
    lines: [{ name: 'Monthly', amount: 1900 }],
    total: 1900,
    currency: 'EUR',
    mode: 'test' as const,
    customer: null,
    metadata: {},
    promo: null,
    promo_tier: null,
    recurring: { renew_interval: 'P1M', invoice_interval: 'P1M', trial_period_days: null },
  };
  const clock = (over: Partial<Exclude<TestClockState, { status: 'none' }>> = {}): TestClockState => ({
    status: 'ready',
    id: 'clock_1',
    organization_id: 'org_a',
    name: null,
    frozen_time: T0,
    created_at: 100,
    ...over,
  });
  const sessionCreated: CheckoutSessionEvent = { type: 'CheckoutSessionCreated', data: { ...session, test_clock: 'clock_1', expires_at: 100 + 3600, created_at: 100 } };

  it("takes a test-mode clock of the session's organization, and refuses any other", () => {
    spec.given([]).when({ type: 'CreateSession', session: { ...session, test_clock: 'clock_1' }, expiresIn: 3600, now: 100, testClock: clock({ status: 'advancing' }) }).then([sessionCreated]);
    const refused: Array<[Partial<typeof session>, TestClockState | undefined, string]> = [
      [{ mode: 'live' as never }, clock(), 'test_clock_live_mode'],
      [{}, clock({ organization_id: 'org_b' }), 'unknown_test_clock'],
      [{}, clock({ status: 'deleted' }), 'unknown_test_clock'],
      [{}, { status: 'none' }, 'unknown_test_clock'],
      [{}, undefined, 'unknown_test_clock'],
    ];
    for (const [over, testClock, code] of refused) {
      spec
        .given([])
        .when({ type: 'CreateSession', session: { ...session, ...over, test_clock: 'clock_1' }, expiresIn: 3600, now: 100, ...(testClock ? { testClock } : {}) })
        .thenThrows(code);
    }
  });

  it('names the subscription and the saved card when a recurring session completes', () => {
    const started: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: null, started_at: 110 } };
    const attempted: CheckoutSessionEvent = { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_1', attempted_at: 120 } };
    const card = { brand: 'visa', last4: '4242' };
    const method = { id: 'pm_card_visa', provider: 'test', card, exp_month: 12, exp_year: 2099 };
    spec
      .given([sessionCreated, started, attempted])
      .when({ type: 'CompleteSession', attemptId: 'pa_1', card, paymentMethod: method, subscriptionId: 'sub_1', now: 121 })
      .then([{ type: 'CheckoutSessionCompleted', data: { attempt_id: 'pa_1', invoice_id: 'in_1', card, completed_at: 121, payment_method: method, subscription_id: 'sub_1' } }]);
    // A one-time session's completion names neither, whatever the command carries.
    const { recurring: _r, test_clock: _c, ...oneTime } = sessionCreated.data as typeof sessionCreated.data & { recurring?: unknown; test_clock?: unknown };
    spec
      .given([{ type: 'CheckoutSessionCreated', data: oneTime }, started, attempted])
      .when({ type: 'CompleteSession', attemptId: 'pa_1', card, paymentMethod: method, subscriptionId: 'sub_1', now: 121 })
      .then([{ type: 'CheckoutSessionCompleted', data: { attempt_id: 'pa_1', invoice_id: 'in_1', card, completed_at: 121 } }]);
  });
});
