import type { ManagedOffer } from '../../../modules/checkout/index.ts';
import { useEffect, useState } from 'preact/hooks';
import { api, type Paged } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card, StatCard } from '../components/Card.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatDateTime, formatMoney, zonedTimeToUnix } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { pageOfList, takenError, toMajor, toMinor, zonedParts } from './pageKit.tsx';

// Hand-kept until the promo routes join a module whose index.ts exports their schemas.
type Tier = { name: string; price: number | null; discount_percent: number | null; until: number | null; max_participants: number | null };
type Promo = { slug: string; name: string; starts_at: number; ends_at: number; tiers: Tier[]; offers?: string[] | null; participants_count: number };
type Participant = { id: string; email: string; reference: string | null; enrolled_at: number };
type OfferSummary = Pick<ManagedOffer, 'slug' | 'name' | 'currency' | 'status'>;

const phase = (p: Pick<Promo, 'starts_at' | 'ends_at'>, now = Date.now() / 1000) => (now < p.starts_at ? 'scheduled' : now < p.ends_at ? 'running' : 'ended');
const PHASE_LABEL = { scheduled: 'Scheduled', running: 'Running', ended: 'Ended' } as const;
const PHASE_TONE = { scheduled: 'open', running: 'active', ended: 'expired' } as const;

/** "2d 04:05:06" until a moment. */
function countdown(to: number, now: number): string {
  let s = Math.max(0, Math.floor(to - now));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d ? `${d}d ` : ''}${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

function useNow(): number {
  const [now, setNow] = useState(Date.now() / 1000);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const tierDeal = (t: Tier, currency: string) => (t.discount_percent !== null ? `${t.discount_percent}% off` : formatMoney(t.price, currency));

/** Promos: price tiers over a window of time, and who joined them. */
export function PromosPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const list = useApi<{ data: Promo[] }>('/promos');
  const create = (
    <Link class="btn btn-primary" href="/dashboard/promos/new">
      New promo
    </Link>
  );
  const paged = list.data ? pageOfList([...list.data.data].sort((a, b) => b.starts_at - a.starts_at), page) : null;
  return (
    <>
      <PageHeader title="Promos" description="Launch prices in tiers (the first 100 buyers, until Friday…) with a countdown, and the people who joined." actions={create} />
      <ErrorNotice error={list.error} />
      {!paged && list.loading && <Loading />}
      <PagedTable
        caption="Promos"
        page={paged}
        pages="Promo pages"
        rowKey={(p) => p.slug}
        columns={[
          {
            header: 'Promo',
            cell: (p) => (
              <>
                <Link href={`/dashboard/promos/${encodeURIComponent(p.slug)}`}>{p.name}</Link>
                <div class="muted mono">{p.slug}</div>
              </>
            ),
          },
          { header: 'When', cell: (p) => `${formatDateTime(p.starts_at)} – ${formatDateTime(p.ends_at)}`, wide: true },
          { header: 'Status', cell: (p) => <Badge status={PHASE_TONE[phase(p)]}>{PHASE_LABEL[phase(p)]}</Badge> },
          { header: 'Participants', cell: (p) => p.participants_count, align: 'right' },
        ]}
        empty={
          <EmptyState title="No promos yet" action={create}>
            Create a promo to price your offers in tiers for a while; an Automation sequence can enrol buyers in it.
          </EmptyState>
        }
      />
    </>
  );
}

type TierForm = { name: string; kind: 'discount' | 'price'; value: string; untilDate: string; untilTime: string; max: string };
const tierForm = (t: Tier, currency: string): TierForm => {
  const [untilDate, untilTime] = zonedParts(t.until);
  return {
    name: t.name,
    kind: t.discount_percent !== null ? 'discount' : 'price',
    value: t.discount_percent !== null ? String(t.discount_percent) : toMajor(t.price ?? 0, currency),
    untilDate,
    untilTime,
    max: t.max_participants === null ? '' : String(t.max_participants),
  };
};
const emptyTier = (): TierForm => ({ name: '', kind: 'discount', value: '', untilDate: '', untilTime: '', max: '' });
const num = (v: string) => (v.trim() === '' ? Number.NaN : Number(v));

/** Create (`/dashboard/promos/new`) or edit a promo; its countdown and participants. */
export function PromoPage({ params }: PageProps) {
  const isNew = params.slug === undefined;
  const promos = useApi<{ data: Promo[] }>('/promos');
  const offers = useApi<Paged<OfferSummary>>('/offers', { per_page: 100 });
  const [promo, setPromo] = useState<Promo | null>(null);
  const { fields, set, setFields } = useFields({ slug: '', name: '', start: ['', '09:00'] as [string, string], end: ['', '18:00'] as [string, string], tiers: [emptyTier()], chosenOffers: [] as string[] });
  const { slug, name, start, end, tiers, chosenOffers } = fields;
  const setTiers = set('tiers');
  const { busy, error, run } = useAction<'save'>();
  const [saved, setSaved] = useState<string | null>(null);
  const now = useNow();

  const offerList = offers.data?.data ?? [];
  const currency = offerList.find((o) => chosenOffers.includes(o.slug))?.currency ?? offerList[0]?.currency ?? 'EUR';
  const fill = (p: Promo) => {
    setPromo(p);
    setFields({ slug: p.slug, name: p.name, start: zonedParts(p.starts_at), end: zonedParts(p.ends_at), tiers: p.tiers.map((t) => tierForm(t, currency)), chosenOffers: p.offers ?? [] });
  };
  useEffect(() => {
    const found = promos.data?.data.find((p) => p.slug === params.slug);
    if (found && offers.data) fill(found);
  }, [promos.data, offers.data]);

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const at = ([date, time]: [string, string]) => (date ? zonedTimeToUnix(date, time || '00:00') : Number.NaN);
    const body = {
      slug: slug.trim(),
      name: name.trim(),
      starts_at: at(start),
      ends_at: at(end),
      offers: chosenOffers.length ? chosenOffers : null,
      tiers: tiers.map((t) => ({
        name: t.name.trim(),
        price: t.kind === 'price' ? toMinor(t.value, currency) : null,
        discount_percent: t.kind === 'discount' ? num(t.value) : null,
        until: t.untilDate ? zonedTimeToUnix(t.untilDate, t.untilTime || '00:00') : null,
        max_participants: t.max.trim() ? num(t.max) : null,
      })),
    };
    await run('save', async () => {
      const current = await api.get<{ data: Promo[] }>('/promos');
      if (isNew && current.data.some((p) => p.slug === body.slug)) throw takenError('slug', 'A promo');
      const answer = await api.post<Promo>('/promos', body);
      setSaved(isNew ? 'Promo created.' : 'Promo saved.');
      promos.reload();
      if (isNew) navigate(`/dashboard/promos/${encodeURIComponent(answer.slug ?? body.slug)}`, { replace: true });
    });
  };
  const setTier = (i: number, change: Partial<TierForm>) => setTiers(tiers.map((t, j) => (j === i ? { ...t, ...change } : t)));

  const back = <Link href="/dashboard/promos">← Promos</Link>;
  if (!isNew && !promo) {
    const missing = promos.data && !promos.data.data.some((p) => p.slug === params.slug);
    return (
      <>
        <PageHeader title="Promo" back={back} />
        <ErrorNotice error={promos.error ?? offers.error} />
        {missing ? <EmptyState title="No such promo">It may belong to another organization. Go back to the list of promos.</EmptyState> : <Loading />}
      </>
    );
  }
  const state = promo ? phase(promo, now) : null;
  const shown = ['slug', 'name', 'starts_at', 'ends_at', 'offers', 'tiers', ...tiers.flatMap((_, i) => ['name', 'price', 'discount_percent', 'until', 'max_participants', ''].map((f) => `tiers.${i}${f ? `.${f}` : ''}`))];
  return (
    <>
      <PageHeader title={isNew ? 'New promo' : promo!.name} back={back} description={promo ? <Badge status={PHASE_TONE[state!]}>{PHASE_LABEL[state!]}</Badge> : 'Tiers price your offers for a while; the first tier that still has room and time applies.'} />
      {saved && <Notice tone="success">{saved}</Notice>}
      {promo && (
        <div class="grid grid-4">
          <StatCard
            label={state === 'scheduled' ? 'Starts in' : state === 'running' ? 'Ends in' : 'Ended'}
            value={state === 'scheduled' ? countdown(promo.starts_at, now) : state === 'running' ? countdown(promo.ends_at, now) : formatDateTime(promo.ends_at)}
            timer
          />
          <StatCard label="Participants" value={promo.participants_count} />
        </div>
      )}
      <form onSubmit={save} noValidate>
        <Card title="Promo" id="promo">
          <div class="form-row align-top">
            <Field label="Name" name="name" error={error}>
              {(c) => <Input {...c} value={name} onValue={set('name')} />}
            </Field>
            <Field label="Slug" name="slug" error={error} hint={isNew ? 'Lower-case letters, digits and dashes; it cannot change.' : 'It cannot change.'}>
              {(c) => <Input {...c} value={slug} onValue={(v) => set('slug')(v.toLowerCase())} readOnly={!isNew} autoComplete="off" />}
            </Field>
          </div>
          <div class="form-row align-top">
            <Field label="Starts on" name="starts_at" error={error}>
              {(c) => <Input {...c} type="date" value={start[0]} onValue={(v) => set('start')([v, start[1]])} />}
            </Field>
            <Field label="Start time" name="starts_at_time">
              {(c) => <Input {...c} type="time" value={start[1]} onValue={(v) => set('start')([start[0], v])} />}
            </Field>
            <Field label="Ends on" name="ends_at" error={error}>
              {(c) => <Input {...c} type="date" value={end[0]} onValue={(v) => set('end')([v, end[1]])} />}
            </Field>
            <Field label="End time" name="ends_at_time">
              {(c) => <Input {...c} type="time" value={end[1]} onValue={(v) => set('end')([end[0], v])} />}
            </Field>
          </div>
          <p class="field-hint">Times are in the organization's timezone (Settings).</p>
          <fieldset class="checks" aria-describedby="offers-hint">
            <legend>Offers it prices</legend>
            {offerList.length === 0 && <p class="muted">No offers yet: a promo with discount tiers applies to every offer.</p>}
            {offerList.map((o) => (
              <label key={o.slug} class="check">
                <input
                  type="checkbox"
                  checked={chosenOffers.includes(o.slug)}
                  onChange={(e) => set('chosenOffers')((e.target as HTMLInputElement).checked ? [...chosenOffers, o.slug] : chosenOffers.filter((s) => s !== o.slug))}
                />
                {o.name} <span class="muted mono">{o.slug}</span>
              </label>
            ))}
            <p class="field-hint" id="offers-hint">
              None chosen: every offer (discount tiers only). {error?.field('offers') && <span class="field-error">{error.field('offers')}</span>}
            </p>
          </fieldset>
        </Card>
        <Card
          title="Tiers"
          id="tiers"
          actions={
            <Button size="sm" onClick={() => setTiers([...tiers, emptyTier()])}>
              Add tier
            </Button>
          }
        >
          {tiers.map((t, i) => (
            <fieldset class="plan-fieldset" key={i}>
              <legend>Tier {i + 1}</legend>
              {error?.field(`tiers.${i}`) && <p class="field-error">{error.field(`tiers.${i}`)}</p>}
              <div class="form-row align-top">
                <Field label="Tier name" name={`tiers.${i}.name`} error={error}>
                  {(c) => <Input {...c} value={t.name} onValue={(v) => setTier(i, { name: v })} placeholder="Early bird" />}
                </Field>
                <Field label="Deal" name={`tiers.${i}.kind`}>
                  {(c) => (
                    <select {...c} class="input" value={t.kind} onChange={(e) => setTier(i, { kind: (e.target as HTMLSelectElement).value as TierForm['kind'] })}>
                      <option value="discount">Percent off</option>
                      <option value="price">Fixed price</option>
                    </select>
                  )}
                </Field>
                <Field label={t.kind === 'discount' ? 'Percent off' : `Price (${currency})`} name={t.kind === 'discount' ? `tiers.${i}.discount_percent` : `tiers.${i}.price`} error={error}>
                  {(c) => <Input {...c} value={t.value} onValue={(v) => setTier(i, { value: v })} inputMode="decimal" />}
                </Field>
              </div>
              <div class="form-row align-top">
                <Field label="Until (date, optional)" name={`tiers.${i}.until`} error={error}>
                  {(c) => <Input {...c} type="date" value={t.untilDate} onValue={(v) => setTier(i, { untilDate: v })} />}
                </Field>
                <Field label="Until (time)" name={`tiers.${i}.until_time`}>
                  {(c) => <Input {...c} type="time" value={t.untilTime} onValue={(v) => setTier(i, { untilTime: v })} />}
                </Field>
                <Field label="Places (optional)" name={`tiers.${i}.max_participants`} error={error}>
                  {(c) => <Input {...c} value={t.max} onValue={(v) => setTier(i, { max: v })} inputMode="numeric" />}
                </Field>
              </div>
              {promo && promo.tiers[i] && <p class="muted">Now: {tierDeal(promo.tiers[i]!, currency)}</p>}
              {tiers.length > 1 && (
                <Button size="sm" variant="ghost" onClick={() => setTiers(tiers.filter((_, j) => j !== i))}>
                  Remove tier {i + 1}
                </Button>
              )}
            </fieldset>
          ))}
        </Card>
        <OtherErrors error={error} shown={shown} />
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={busy === 'save'}>
            {isNew ? 'Create promo' : 'Save changes'}
          </Button>
        </div>
      </form>
      {promo && <Participants slug={promo.slug} />}
    </>
  );
}

function Participants({ slug }: { slug: string }) {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const list = useApi<Paged<Participant>>(`/promos/${encodeURIComponent(slug)}/participants`, { page, per_page: 25 });
  return (
    <Card title="Participants" id="participants">
      <ErrorNotice error={list.error} />
      <PagedTable
        caption="Participants"
        page={list.data}
        pages="Participant pages"
        rowKey={(p) => p.id}
        columns={[
          { header: 'Email', cell: (p) => p.email },
          { header: 'Reference', cell: (p) => p.reference ?? '—', wide: true },
          { header: 'Joined', cell: (p) => formatDateTime(p.enrolled_at) },
        ]}
        empty={
          <EmptyState title="Nobody has joined yet">
            People join through an Automation sequence's <strong>Enrol in promo</strong> action. <Link href="/dashboard/automation">Set one up</Link>.
          </EmptyState>
        }
      />
    </Card>
  );
}
