import { useEffect, useRef, useState } from 'preact/hooks';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { ErrorNotice, Loading } from '../../components/Notice.tsx';
import { formatDate, formatDateTime, formatDateTimeSeconds, formatMoney, zonedTimeToUnix } from '../../format.ts';
import { setQuery } from '../../router.tsx';
import { useApi } from '../../useApi.ts';
import { zonedParts } from '../pageKit.tsx';
import { BILLING_REASONS, duration, lineReason, momentIndex, PRORATION_BEHAVIORS, statementMoments, statusWords } from './subscriptionKit.ts';
import type { SubscriptionResource as Subscription, SubscriptionStatement as Statement, SubscriptionStatementEntry as StatementEntry, SubscriptionStatementLine as StatementLine } from '../../../../modules/subscriptions/index.ts';

type StatementTotals = Statement['totals'];

const TOTALS: { key: keyof StatementTotals; label: string; always?: boolean }[] = [
  { key: 'invoiced', label: 'Invoiced', always: true },
  { key: 'credited', label: 'Credited', always: true },
  { key: 'paid', label: 'Paid', always: true },
  { key: 'refunded', label: 'Refunded', always: true },
  { key: 'owed', label: 'Owed', always: true },
  { key: 'credit_applied', label: 'Credit applied' },
  { key: 'credit_balance', label: 'Credit balance' },
  { key: 'refund_due', label: 'Refund due' },
  { key: 'pending_prorations', label: 'Prorations for the next invoice' },
  { key: 'written_off', label: 'Written off' },
];

function entryTitle(e: StatementEntry, currency: string): string {
  switch (e.type) {
    case 'invoice':
      return `Invoice #${e.invoice.number} · ${BILLING_REASONS[e.billing_reason] ?? e.billing_reason}`;
    case 'payment':
      return `Paid invoice #${e.invoice.number}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}${e.card ? ` with ${e.card.brand} •••• ${e.card.last4}` : ''}`;
    case 'payment_failed':
      return `Payment of invoice #${e.invoice.number} declined (attempt ${e.attempt}: ${e.decline_code ?? e.code})${e.next_payment_attempt !== null ? `; next attempt ${formatDateTime(e.next_payment_attempt)}` : '; no retry'}`;
    case 'refund':
      return `Refunded on invoice #${e.invoice.number} (${e.reason === 'prorated_cancellation' ? 'unused time of a cancellation' : 'refund'})`;
    case 'refund_due':
      return `Refund due on invoice #${e.invoice.number} (unused time of a cancellation)`;
    case 'uncollectible':
      return `Invoice #${e.invoice.number} written off (uncollectible)`;
    case 'void':
      return `Invoice #${e.invoice.number} voided`;
    case 'plan_change': {
      const behavior = PRORATION_BEHAVIORS.find((b) => b.value === e.proration_behavior)?.label ?? e.proration_behavior;
      return `Plan changed: ${e.from.plan_name} (${formatMoney(e.from.amount, currency)}) → ${e.to.plan_name} (${formatMoney(e.to.amount, currency)}), ${behavior.toLowerCase()}`;
    }
  }
}

const entryAmount = (e: StatementEntry): number | null => (e.type === 'invoice' ? e.amount_due : e.type === 'plan_change' || e.type === 'payment_failed' ? null : e.amount);

/**
 * What the customer had been invoiced, paid, credited and owed at `?as_of=`, each line with its
 * reason: the slider stops at each event, the date and time fields take any instant.
 */
export function StatementCard({ base, subscription, moments, now, asOf, version }: { base: string; subscription: Subscription; moments: number[]; now: number | null; asOf: number | null; version: number }) {
  const statement = useApi<Statement>(`${base}/statement`, { as_of: asOf ?? undefined });
  const stops = statementMoments(moments, now);
  const index = momentIndex(stops, asOf);
  // The fields follow the instant asked for (the URL's, else now), not each answer: an answer
  // landing while someone types must not overwrite what they typed.
  const shown = asOf ?? now;
  const [parts, setParts] = useState<[string, string]>(zonedParts(shown));
  useEffect(() => setParts(zonedParts(shown)), [shown]);
  // An action changed the log: ask again for the same instant.
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current !== version) statement.reload();
    seen.current = version;
  }, [version]);
  const select = (i: number) => setQuery({ as_of: i === stops.length - 1 ? null : stops[i]! }, { replace: true });
  const s = statement.data;
  const currency = s?.currency || subscription.currency;

  return (
    <Card title="Statement" id="statement">
      <p class="muted small">What the customer had been invoiced, paid, credited and owed at an instant, from the log up to then: the same answer today as next year.</p>
      {stops.length > 0 && (
        <div class="slider">
          <label for="statement-moment">Statement as of</label>
          <input
            id="statement-moment"
            type="range"
            min={0}
            max={stops.length - 1}
            step={1}
            value={index}
            aria-valuetext={formatDateTimeSeconds(stops[index]!)}
            onInput={(e) => select(Number((e.target as HTMLInputElement).value))}
          />
          <output for="statement-moment" class="slider-output" aria-live="polite">
            {asOf === null ? `Now (${formatDateTimeSeconds(s?.as_of ?? now)})` : formatDateTimeSeconds(asOf)}
          </output>
          {asOf !== null && (
            <button type="button" class="btn btn-ghost btn-sm" onClick={() => setQuery({ as_of: null }, { replace: true })}>
              Back to now
            </button>
          )}
        </div>
      )}
      <form
        class="form-row statement-at"
        aria-label="Statement at a date and time"
        onSubmit={(e) => {
          e.preventDefault();
          if (parts[0]) setQuery({ as_of: zonedTimeToUnix(parts[0], parts[1] || '00:00') }, { replace: true });
        }}
      >
        <div class="field">
          <label for="statement-date">Date</label>
          <input id="statement-date" class="input" type="date" value={parts[0]} onInput={(e) => setParts([(e.target as HTMLInputElement).value, parts[1]])} />
        </div>
        <div class="field">
          <label for="statement-time">Time</label>
          <input id="statement-time" class="input" type="time" value={parts[1]} onInput={(e) => setParts([parts[0], (e.target as HTMLInputElement).value])} />
        </div>
        <div class="field field-button">
          <Button type="submit">Show statement</Button>
        </div>
      </form>
      <ErrorNotice error={statement.error} />
      {!s && statement.loading && <Loading />}
      {s && (
        <div aria-busy={statement.loading || undefined} data-testid="statement">
          <p class="statement-state">
            {s.status === null ? (
              'The subscription did not exist yet.'
            ) : (
              <>
                As of {formatDateTimeSeconds(s.as_of)}: <Badge status={s.status}>{statusWords(s.status)}</Badge> {s.entitled ? 'entitled' : 'not entitled'}
                {s.current_period && (
                  <span class="row-sub">
                    Period {formatDateTime(s.current_period.start)} – {formatDateTime(s.current_period.end)}
                  </span>
                )}
              </>
            )}
          </p>
          <dl class="statement-totals">
            {TOTALS.filter((t) => t.always || s.totals[t.key] !== 0).map((t) => (
              <div key={t.key} class={`statement-total${t.key === 'owed' && s.totals.owed > 0 ? ' stat-bad' : ''}`}>
                <dt>{t.label}</dt>
                <dd data-testid={`statement-${t.key}`}>{formatMoney(s.totals[t.key], currency)}</dd>
              </div>
            ))}
          </dl>
          {s.entries.length > 0 && (
            <ol class="statement-entries" aria-label="What happened up to then">
              {s.entries.map((e, i) => {
                const amount = entryAmount(e);
                const lines = e.type === 'invoice' || e.type === 'plan_change' ? e.lines : [];
                const proration = (e.type === 'refund' || e.type === 'refund_due') && e.proration ? e.proration : null;
                return (
                  <li key={i} class="statement-entry">
                    <div class="statement-entry-head">
                      <time class="statement-when">{formatDateTime(e.at)}</time>
                      <span class="statement-what">{entryTitle(e, currency)}</span>
                      {amount !== null && <span class="statement-amount">{formatMoney(amount, currency)}</span>}
                    </div>
                    {e.type === 'invoice' && e.credit_applied > 0 && <p class="row-sub">Credit applied: {formatMoney(e.credit_applied, currency)}</p>}
                    {proration && <p class="row-sub">{`${duration(proration.seconds_left)} unused of ${formatDate(proration.period_start)} – ${formatDate(proration.period_end)}`}</p>}
                    {lines.length > 0 && <StatementLines lines={lines} currency={currency} />}
                  </li>
                );
              })}
            </ol>
          )}
          {s.pending_prorations.length > 0 && (
            <>
              <h3 class="statement-sub">On the next invoice</h3>
              <StatementLines lines={s.pending_prorations} currency={currency} />
            </>
          )}
        </div>
      )}
    </Card>
  );
}

/** An invoice's lines, each with why it is there. */
function StatementLines({ lines, currency }: { lines: StatementLine[]; currency: string }) {
  return (
    <ul class="statement-lines">
      {lines.map((l, j) => (
        <li key={j}>
          <span class="statement-line-name">
            {l.name}
            <span class="row-sub">{lineReason(l, currency)}</span>
          </span>
          <span class="statement-amount">{formatMoney(l.amount, currency)}</span>
        </li>
      ))}
    </ul>
  );
}
