import { StatCard } from '../../components/Card.tsx';
import { LOCALE } from '../../locale.ts';
import { Link } from '../../router.tsx';
import { useApi } from '../../useApi.ts';
import { moneyPerCurrency } from './subscriptionKit.ts';
import type { SubscriptionMetricsAnswer as SubscriptionMetrics } from '../../../../modules/subscriptions/index.ts';

const n = (v: number) => new Intl.NumberFormat(LOCALE).format(v);

/** Home's subscription figures: MRR per currency and active subscriptions, live; test mode's beside when there are any. */
export function SubscriptionFigures({ currency }: { currency: string }) {
  const live = useApi<SubscriptionMetrics>('/metrics/subscriptions', { mode: 'live' });
  const test = useApi<SubscriptionMetrics>('/metrics/subscriptions', { mode: 'test' });
  const testShown = test.data && (test.data.active_subscriptions > 0 || Object.keys(test.data.mrr).length > 0);
  return (
    <StatCard label="Monthly recurring revenue" value={live.data ? moneyPerCurrency(live.data.mrr, currency) : live.error ? '—' : '…'} testId="mrr">
      <p class="stat-sub" data-testid="active-subscriptions">
        {live.data ? `${n(live.data.active_subscriptions)} active ${live.data.active_subscriptions === 1 ? 'subscription' : 'subscriptions'}` : ''}
      </p>
      {testShown && (
        <p class="stat-sub" data-testid="mrr-test">
          Test mode: {moneyPerCurrency(test.data!.mrr, currency)}, {n(test.data!.active_subscriptions)} active
        </p>
      )}
      <p class="stat-sub">
        <Link href="/dashboard/subscriptions">View subscriptions</Link>
      </p>
    </StatCard>
  );
}
