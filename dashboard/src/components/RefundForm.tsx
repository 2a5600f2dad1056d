import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { formatMoney } from '../format.ts';
import { toMajor, toMinor } from '../pages/pageKit.tsx';
import type { Invoice } from '../types.ts';
import { useAction } from '../useAction.ts';
import { Button } from './Button.tsx';
import { Field, Input, OtherErrors } from './Field.tsx';

/** Refund a paid invoice (owners): all that is left, or an amount in major units (docs/stripe.md). */
export function RefundForm({ invoice, onRefunded }: { invoice: Invoice; onRefunded: () => void }) {
  const left = invoice.total - (invoice.amount_refunded ?? 0);
  const [open, setOpen] = useState(false);
  const [partial, setPartial] = useState(false);
  const [amount, setAmount] = useState('');
  const { busy, error, run } = useAction<'refund'>();
  if (left <= 0) return null;
  if (!open) {
    return (
      <div class="form-actions">
        <Button onClick={() => setOpen(true)}>Refund…</Button>
      </div>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    await run('refund', async () => {
      // An amount that is not one is sent as-is (NaN → null fails zod), so the server says why beside the field.
      const body = partial ? { amount: Number.isFinite(toMinor(amount, invoice.currency)) ? toMinor(amount, invoice.currency) : amount } : {};
      await api.post(`/invoices/${encodeURIComponent(invoice.id)}/refunds`, body);
      setOpen(false);
      setPartial(false);
      setAmount('');
      onRefunded();
    });
  };
  return (
    <form class="refund-form" onSubmit={submit} noValidate aria-label="Refund">
      <fieldset class="checks">
        <legend>Refund</legend>
        <label class="check">
          <input type="radio" name="refund-kind" checked={!partial} onChange={() => setPartial(false)} />
          All that is left: {formatMoney(left, invoice.currency)}
        </label>
        <label class="check">
          <input type="radio" name="refund-kind" checked={partial} onChange={() => setPartial(true)} />
          Part of it
        </label>
      </fieldset>
      {partial && (
        <div class="form-row">
          <Field label={`Amount (${invoice.currency})`} name="amount" error={error} hint={`Up to ${toMajor(left, invoice.currency)}.`}>
            {(c) => <Input {...c} inputMode="decimal" required placeholder={toMajor(left, invoice.currency)} value={amount} onValue={setAmount} />}
          </Field>
        </div>
      )}
      <OtherErrors error={error} shown={partial ? ['amount'] : []} />
      <div class="form-actions">
        <Button type="submit" variant="danger" busy={busy === 'refund'}>
          {partial ? 'Refund this amount' : `Refund ${formatMoney(left, invoice.currency)}`}
        </Button>
        <Button variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
