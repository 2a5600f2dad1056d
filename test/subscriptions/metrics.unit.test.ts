import { describe, expect, it } from 'vitest';
import { extendTimeline, metricsAsOf, monthlyAmount, type SubscriptionTimeline, type TimelinePoint } from '../../modules/subscriptions/domain/metrics.ts';

const DAY = 86_400;
const NOW = Date.UTC(2026, 5, 1) / 1000;

const sub = (currency: string, ...points: Array<[number, TimelinePoint['status'], number]>): SubscriptionTimeline => ({
  currency,
  timeline: points.reduce<TimelinePoint[]>((t, [at, status, monthly]) => extendTimeline(t, { at, status, monthly }), []),
});

describe('subscription metrics', () => {
  it('normalises each interval to a month, rounded half up per subscription', () => {
    expect(monthlyAmount(1000, 'P1M')).toBe(1000);
    expect(monthlyAmount(3000, 'P3M')).toBe(1000);
    expect(monthlyAmount(12000, 'P1Y')).toBe(1000);
    expect(monthlyAmount(1000, 'P1Y')).toBe(83);
    expect(monthlyAmount(1000, 'P1W')).toBe(4333);
    expect(monthlyAmount(1000, 'P2W')).toBe(2167);
    expect(monthlyAmount(100, 'P1D')).toBe(3042);
    expect(monthlyAmount(6, 'P1Y')).toBe(1);
  });

  it('counts active and past_due in MRR per currency, never trials, pauses or ended ones', () => {
    const m = metricsAsOf(
      [
        sub('EUR', [NOW - 100 * DAY, 'active', 1000]),
        sub('EUR', [NOW - 100 * DAY, 'active', 1000], [NOW - 5 * DAY, 'past_due', 1000]),
        sub('EUR', [NOW - 10 * DAY, 'trialing', 5000]),
        sub('EUR', [NOW - 100 * DAY, 'active', 700], [NOW - 50 * DAY, 'paused', 700]),
        sub('USD', [NOW - 100 * DAY, 'active', 900]),
        sub('EUR', [NOW + DAY, 'active', 4000]),
      ],
      NOW,
    );
    expect(m).toMatchObject({ mrr: { EUR: 2000, USD: 900 }, active_subscriptions: 3, by_status: { active: 2, past_due: 1, trialing: 1, paused: 1 } });
  });

  it('counts new, churned and reactivated over the 30 days before as_of', () => {
    const m = metricsAsOf(
      [
        // Trial converted 10 days ago: new.
        sub('EUR', [NOW - 40 * DAY, 'trialing', 1000], [NOW - 10 * DAY, 'active', 1000]),
        // Active for long, canceled 3 days ago: churned.
        sub('EUR', [NOW - 90 * DAY, 'active', 1000], [NOW - 3 * DAY, 'canceled', 1000]),
        // A trial canceled before paying: neither.
        sub('EUR', [NOW - 20 * DAY, 'trialing', 1000], [NOW - 2 * DAY, 'canceled', 1000]),
        // Paused in winter, resumed a week ago: reactivated.
        sub('EUR', [NOW - 200 * DAY, 'active', 1000], [NOW - 100 * DAY, 'paused', 1000], [NOW - 7 * DAY, 'active', 1000]),
        // Started and ended inside the window: new and churned.
        sub('EUR', [NOW - 20 * DAY, 'active', 1000], [NOW - DAY, 'canceled', 1000]),
        // Started 31 days ago: outside the window.
        sub('EUR', [NOW - 31 * DAY, 'active', 1000]),
      ],
      NOW,
    );
    expect(m).toMatchObject({ new: 2, churned: 2, reactivated: 1, window: { from: NOW - 30 * DAY, to: NOW } });
    // Seen from before those changes, they are not there yet.
    expect(metricsAsOf([sub('EUR', [NOW - 90 * DAY, 'active', 1000], [NOW - 3 * DAY, 'canceled', 1000])], NOW - 4 * DAY)).toMatchObject({ churned: 0, mrr: { EUR: 1000 } });
  });
});
