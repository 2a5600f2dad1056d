import { useEffect, useRef, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { ManagedProductSchema, Plan as CatalogPlan } from '../../../../modules/catalog/index.ts';
import { api, type Paged } from '../../api.ts';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { Field, Select } from '../../components/Field.tsx';
import { ErrorNotice } from '../../components/Notice.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import { hasEnded, intervalWords, PRORATION_BEHAVIORS } from './subscriptionKit.ts';
import type { SubscriptionResource as Subscription } from '../../../../modules/subscriptions/index.ts';

type Product = z.infer<typeof ManagedProductSchema>;
type Kind = 'cancel_end' | 'reactivate' | 'cancel_now' | 'pause' | 'resume' | 'change_plan';

const COUNTERPART: Record<Kind, Kind | null> = { cancel_end: 'reactivate', reactivate: 'cancel_end', pause: 'resume', resume: 'pause', cancel_now: null, change_plan: null };

/** A plan's price, all charges summed, in its currency. */
const planPrice = (p: CatalogPlan) => p.charges.reduce((sum, c) => sum + c.amount, 0);

/**
 * The seller's actions on a subscription. Those that take access away or move money ask first;
 * a refusal (409, 422) shows beside the button that caused it.
 */
export function SubscriptionActions({ subscription: s, owner, onDone }: { subscription: Subscription; owner: boolean; onDone: () => void }) {
  const action = useAction<Kind>();
  const [asking, setAsking] = useState<Kind | null>(null);
  const [refund, setRefund] = useState<'none' | 'prorated'>('none');
  const [plan, setPlan] = useState('');
  const [behavior, setBehavior] = useState<(typeof PRORATION_BEHAVIORS)[number]['value']>('create_prorations');
  const ended = hasEnded(s);
  const product = useApi<Product>(ended ? null : `/products/${encodeURIComponent(s.plan.product_id)}`);
  // A subscription may move to another product's plan too (as a Stripe subscription to another product's price).
  const catalog = useApi<Paged<Product>>(ended ? null : '/products', { per_page: 100 });
  const base = `/subscriptions/${encodeURIComponent(s.id)}`;
  // Focus follows the question: onto "Yes, …" when it is asked, back to the action when it is put away.
  const asked = useRef<Kind | null>(null);
  useEffect(() => {
    const id = asking ? `confirm-${asking}` : asked.current ? `action-${asked.current}` : null;
    asked.current = asking;
    if (id) document.getElementById(id)?.focus();
  }, [asking]);
  // After an action its counterpart takes the button's place once the subscription is read again
  // (Reactivate after Cancel at period end…): focus goes there rather than to the page's body.
  const [then, setThen] = useState<Kind | null>(null);
  useEffect(() => {
    const next = then && document.getElementById(`action-${then}`);
    if (next) {
      next.focus();
      setThen(null);
    }
  }, [s, then]);

  const run = async (kind: Kind, path: string, body: unknown = {}) => {
    setAsking(null);
    const done = await action.run(kind, () => api.post(`${base}/${path}`, body));
    if (done === undefined) return;
    // The plan chosen is now the subscription's own, no longer among the choices.
    if (kind === 'change_plan') setPlan('');
    setThen(COUNTERPART[kind]);
    onDone();
  };

  /** A button that, when `confirm` is given, asks on the spot before it acts. */
  const act = (kind: Kind, label: string, work: () => Promise<void>, o: { confirm?: string; variant?: 'primary' | 'secondary' | 'danger' } = {}) => {
    if (asking === kind && o.confirm) {
      return (
        <div class="action-confirm" role="group" aria-label={`Confirm: ${label}`}>
          <p>{o.confirm}</p>
          <span class="confirm">
            <Button id={`confirm-${kind}`} variant={o.variant === 'primary' ? 'primary' : 'danger'} size="sm" busy={action.busy === kind} onClick={work}>
              Yes, {label.toLowerCase()}
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setAsking(null)}>
              Keep it as it is
            </Button>
          </span>
        </div>
      );
    }
    return (
      <Button id={`action-${kind}`} variant={o.variant ?? 'secondary'} size="sm" busy={action.busy === kind} disabled={action.busy !== null && action.busy !== kind} error={action.errorOf(kind)} onClick={() => (o.confirm ? setAsking(kind) : void work())}>
        {label}
      </Button>
    );
  };

  if (ended) {
    return (
      <Card title="Actions" id="actions">
        <p class="muted">This subscription has ended: nothing more can be done to it. The buyer subscribes again through a checkout.</p>
      </Card>
    );
  }

  // The plans the route accepts: recurring, same currency, same invoice interval (the period stays
  // as it is); the subscription's own product's first, then the other active products'.
  const fits = (p: CatalogPlan) => p.type === 'recurring' && p.id !== s.plan.id && p.currency_code.toUpperCase() === s.currency.toUpperCase() && p.invoice_interval === s.plan.invoice_interval;
  const own = product.data;
  const others = (catalog.data?.data ?? []).filter((p) => p.id !== own?.id && p.status === 'active');
  const groups = own ? [own, ...others].map((p) => ({ product: p, plans: (p.plans as unknown as CatalogPlan[]).filter(fits) })).filter((g) => g.plans.length > 0) : [];
  const choices = groups.flatMap((g) => g.plans.map((p) => ({ key: `${g.product.id}/${p.id}`, product: g.product, plan: p })));
  const changeable = s.status === 'active' || s.status === 'trialing' || s.status === 'past_due';
  const chosen = choices.find((c) => c.key === plan);
  const planLabel = (p: CatalogPlan) => `${p.display_name || p.name}: ${formatMoney(planPrice(p), p.currency_code)} / ${intervalWords(p.invoice_interval)}`;
  const productName = (p: Product) => p.display_name || p.name || p.key;
  const optionsOf = (g: (typeof groups)[number]) =>
    g.plans.map((p) => (
      <option key={p.id} value={`${g.product.id}/${p.id}`}>
        {planLabel(p)}
      </option>
    ));
  const explain = PRORATION_BEHAVIORS.find((b) => b.value === behavior)!.explain;

  return (
    <Card title="Actions" id="actions">
      <div class="sub-actions">
        <section class="sub-action" aria-labelledby="act-cancel-end">
          <h3 id="act-cancel-end">{s.cancel_at_period_end ? 'Scheduled to cancel' : 'Cancel at period end'}</h3>
          {s.cancel_at_period_end ? (
            <>
              <p class="muted small">It ends {formatDateTime(s.cancel_at)}; the buyer keeps access until then. Reactivate to keep it renewing.</p>
              {act('reactivate', 'Reactivate', () => run('reactivate', 'reactivate'), { variant: 'primary' })}
            </>
          ) : (
            <>
              <p class="muted small">The buyer keeps access until the end of the term and is not billed again. Reversible until then.</p>
              {act('cancel_end', 'Cancel at period end', () => run('cancel_end', 'cancel', { at_period_end: true }), {
                confirm: `Stop renewing? It ends at the end of the term${s.plan.renew_interval ? ` (every ${intervalWords(s.plan.renew_interval)})` : ''}.`,
              })}
            </>
          )}
        </section>

        <section class="sub-action" aria-labelledby="act-cancel-now">
          <h3 id="act-cancel-now">Cancel now</h3>
          <p class="muted small">Ends it at once: the buyer loses access now.</p>
          {owner ? (
            <fieldset class="radios">
              <legend>The unused time of the last paid invoice</legend>
              <label>
                <input type="radio" name="refund" value="none" checked={refund === 'none'} onChange={() => setRefund('none')} /> Keep it (no refund)
              </label>
              <label>
                <input type="radio" name="refund" value="prorated" checked={refund === 'prorated'} onChange={() => setRefund('prorated')} /> Refund the unused time
              </label>
            </fieldset>
          ) : (
            <p class="muted small">Only an owner may refund the unused time.</p>
          )}
          {act('cancel_now', 'Cancel now', () => run('cancel_now', 'cancel', { at_period_end: false, refund }), {
            confirm: refund === 'prorated' ? 'End it now and refund the unused time to the card?' : 'End it now, with no refund?',
            variant: 'danger',
          })}
        </section>

        <section class="sub-action" aria-labelledby="act-pause">
          <h3 id="act-pause">{s.status === 'paused' ? 'Paused' : 'Pause'}</h3>
          {s.status === 'paused' ? (
            <>
              <p class="muted small">Resuming starts a new period now and invoices it at once.</p>
              {act('resume', 'Resume', () => run('resume', 'resume'), { confirm: 'Resume and charge a new period now?', variant: 'primary' })}
            </>
          ) : s.status === 'active' || s.status === 'trialing' ? (
            <>
              <p class="muted small">No renewal is invoiced and the buyer has no access until you resume.</p>
              {act('pause', 'Pause', () => run('pause', 'pause'), { confirm: 'Pause it? The buyer loses access until you resume.' })}
            </>
          ) : (
            <p class="muted small">Only an active or trialing subscription can be paused.</p>
          )}
        </section>

        <section class="sub-action" aria-labelledby="act-plan">
          <h3 id="act-plan">Change plan</h3>
          <ErrorNotice error={product.error ?? catalog.error} />
          {!changeable && <p class="muted small">Only an active, trialing or past-due subscription changes plan.</p>}
          {changeable && product.data && catalog.data && !choices.length && (
            <p class="muted small">
              No product has another recurring plan in {s.currency} billed every {intervalWords(s.plan.invoice_interval)}. Add one in the Catalog.
            </p>
          )}
          {changeable && choices.length > 0 && (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setAsking('change_plan');
              }}
            >
              <Field label="New plan" name="plan" error={action.errorOf('change_plan')}>
                {(c) => (
                  <Select {...c} value={plan} required onValue={(v) => setPlan(v)}>
                    <option value="">Choose a plan</option>
                    {groups.length === 1 && groups[0]!.product === own
                      ? optionsOf(groups[0]!)
                      : groups.map((g) => (
                          <optgroup key={g.product.id} label={g.product === own ? `${productName(g.product)} (its product)` : productName(g.product)}>
                            {optionsOf(g)}
                          </optgroup>
                        ))}
                  </Select>
                )}
              </Field>
              <Field label="Proration" name="proration_behavior" error={action.errorOf('change_plan')} hint={explain}>
                {(c) => (
                  <Select {...c} value={behavior} onValue={(v) => setBehavior(v as typeof behavior)}>
                    {PRORATION_BEHAVIORS.map((b) => (
                      <option key={b.value} value={b.value}>
                        {b.label}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
              {asking === 'change_plan' && chosen ? (
                <div class="action-confirm" role="group" aria-label="Confirm: change plan">
                  <p>
                    Move to {chosen.product === own ? '' : `${productName(chosen.product)}, `}
                    {chosen.plan.display_name || chosen.plan.name} ({formatMoney(planPrice(chosen.plan), chosen.plan.currency_code)} / {intervalWords(chosen.plan.invoice_interval)}), {PRORATION_BEHAVIORS.find((b) => b.value === behavior)!.label.toLowerCase()}?
                  </p>
                  <span class="confirm">
                    <Button id="confirm-change_plan" variant="primary" size="sm" busy={action.busy === 'change_plan'} onClick={() => run('change_plan', 'change_plan', { plan: chosen.plan.id, ...(chosen.product === own ? {} : { product: chosen.product.id }), proration_behavior: behavior })}>
                      Yes, change plan
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => setAsking(null)}>
                      Keep it as it is
                    </Button>
                  </span>
                </div>
              ) : (
                <Button id="action-change_plan" type="submit" size="sm" disabled={!plan || action.busy !== null} error={action.errorOf('change_plan') && !action.errorOf('change_plan')!.field('plan') ? action.errorOf('change_plan') : null}>
                  Change plan
                </Button>
              )}
            </form>
          )}
        </section>
      </div>
    </Card>
  );
}
