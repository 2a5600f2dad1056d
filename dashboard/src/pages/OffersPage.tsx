import type { ManagedOffer } from '../../../modules/checkout/index.ts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiError, type Paged } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { originErrorNames, originLines, OriginsField } from '../components/OriginsField.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatMoney } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import type { Product } from './CatalogPage.tsx';
import { asApiError, takenError } from './pageKit.tsx';

type Offer = ManagedOffer;
type OfferPage = Offer['pages'][number];
type Block = OfferPage['blocks'][number];

/** The hosted checkout page of a published offer (what the seller shares). */
export const checkoutLink = (slug: string) => `${location.origin}/checkout/${slug}`;

/** The two lines a seller pastes into their page to sell this offer with the SDK (docs/sdk.md). */
export const sdkSnippet = (slug: string) =>
  `<script src="${location.origin}/sdk.js" async></script>\n<button data-service-present="${slug}" data-service-frame="modal">Buy</button>`;

/** Checkout offers: one plan of one product, in a theme, with its pages. */
export function OffersPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const list = useApi<Paged<Offer>>('/offers', { page, per_page: 25 });
  const create = (
    <Link class="btn btn-primary" href="/dashboard/offers/new">
      New offer
    </Link>
  );
  return (
    <>
      <PageHeader title="Offers" description="What a buyer sees at checkout: a plan of a product, your colours and your pages." actions={create} />
      <ErrorNotice error={list.error} />
      {!list.data && list.loading && <Loading />}
      <PagedTable
        caption="Offers"
        page={list.data}
        pages="Offer pages"
        rowKey={(o) => o.id}
        busy={list.loading}
        columns={[
          {
            header: 'Offer',
            cell: (o) => (
              <>
                <Link href={`/dashboard/offers/${encodeURIComponent(o.slug)}`}>{o.name}</Link>
                <div class="muted mono">{o.slug}</div>
              </>
            ),
          },
          { header: 'Price', cell: (o) => formatMoney(o.price, o.currency), align: 'right' },
          { header: 'Status', cell: (o) => <Badge status={o.status}>{o.status[0]!.toUpperCase() + o.status.slice(1)}</Badge> },
          { header: 'Checkout link', cell: (o) => (o.status === 'published' ? <CopyButton text={checkoutLink(o.slug)} label="Copy link" /> : <span class="muted">Publish to share</span>), wide: true },
        ]}
        empty={
          <EmptyState title="No offers yet" action={create}>
            Make an offer of a product's plan: you get a checkout link and a Buy button for your site.
          </EmptyState>
        }
      />
    </>
  );
}

const starterPages = (name: string): OfferPage[] => [
  { id: 'checkout', type: 'checkout', title: name || 'Checkout', blocks: [{ type: 'heading', text: name || 'Your product' }, { type: 'price' }] },
  { id: 'thanks', type: 'thank_you', title: 'Thank you', blocks: [{ type: 'text', text: 'Your receipt is on its way.' }] },
];

/** A new offer's starter page says the name as it is typed, until the seller writes their own title and heading. */
const followName = (pages: OfferPage[], from: string, to: string): OfferPage[] => {
  const [before, after] = [starterPages(from)[0]!, starterPages(to)[0]!];
  const heading = (p: OfferPage) => (p.blocks[0]?.type === 'heading' ? p.blocks[0].text : null);
  return pages.map((p) => {
    if (p.type !== 'checkout') return p;
    const title = p.title === before.title ? after.title : p.title;
    const blocks = heading(p) === heading(before) ? [{ ...p.blocks[0]!, text: heading(after)! } as Block, ...p.blocks.slice(1)] : p.blocks;
    return { ...p, title, blocks };
  });
};

const newBlock = (type: Block['type']): Block =>
  type === 'features' ? { type, items: [''] } : type === 'price' ? { type } : type === 'image' ? { type, url: 'https://', alt: '' } : { type, text: '' };

/** Create or edit an offer, with the hosted page's live preview beside the form. */
export function OfferPage({ params }: PageProps) {
  const isNew = params.ref === undefined;
  const loaded = useApi<Offer>(isNew ? null : `/offers/${encodeURIComponent(params.ref!)}`);
  const products = useApi<Paged<Product>>('/products', { per_page: 100 });
  const [offer, setOffer] = useState<Offer | null>(null);
  const { fields, set, setFields } = useFields({ slug: '', name: '', product: '', plan: '', color: '#4f46e5', buttonText: 'Pay now', origins: '', trial: '', coupon: '' });
  const { slug, name, product, plan, color, buttonText, origins, trial, coupon } = fields;
  const [pages, setPages] = useState<OfferPage[]>(starterPages(''));
  const { busy, errorOf, run } = useAction<'save' | 'publish' | 'archive'>();
  // The form's errors under the form; each header action's beside its button.
  const error = errorOf('save');
  const [saved, setSaved] = useState<string | null>(null);

  const fill = (o: Offer, productKey: string | undefined) => {
    setOffer(o);
    setFields((f) => ({
      slug: o.slug,
      name: o.name,
      product: productKey || f.product,
      plan: o.plan.plan_name,
      color: o.theme.primary_color,
      buttonText: o.theme.button_text ?? 'Pay now',
      origins: (o.allowed_redirect_origins ?? []).join('\n'),
      trial: o.trial_period_days ? String(o.trial_period_days) : '',
      coupon: o.coupon ?? '',
    }));
    setPages(o.pages);
  };
  const productList = products.data?.data ?? [];
  useEffect(() => {
    if (loaded.data && products.data) fill(loaded.data, productList.find((p) => p.id === loaded.data!.plan.product_id)?.key);
  }, [loaded.data, products.data]);
  useEffect(() => {
    if (!isNew || product || !productList.length) return;
    const first = productList.find((p) => p.status === 'active' && p.plans.length) ?? productList[0]!;
    setFields((f) => ({ ...f, product: first.key, plan: first.plans[0]?.name ?? '' }));
  }, [products.data]);

  const chosen = productList.find((p) => p.key === product);
  // Only a recurring plan has a trial; what is not a whole number goes as typed, for the route to refuse.
  const recurring = chosen?.plans.find((p) => p.name === plan)?.type === 'recurring';
  const trialDays = trial.trim() === '' ? null : /^\d+$/.test(trial.trim()) ? Number(trial.trim()) : trial.trim();
  const body = () => ({
    slug: slug.trim(),
    name: name.trim(),
    product,
    plan,
    theme: { ...(offer?.theme ?? {}), primary_color: color, button_text: buttonText.trim() || 'Pay now' },
    pages,
    // Not edited here, but kept: the route removes what a save leaves out, as a re-import does.
    ...(offer?.success_url ? { success_url: offer.success_url } : {}),
    ...(offer?.cancel_url ? { cancel_url: offer.cancel_url } : {}),
    ...(offer?.shop_url ? { shop_url: offer.shop_url } : {}),
    allowed_redirect_origins: originLines(origins),
    ...(recurring && trialDays !== null ? { trial_period_days: trialDays } : {}),
    ...(coupon.trim() ? { coupon: coupon.trim() } : {}),
    published: offer?.status === 'published',
  });

  // The live preview: the form as it stands, drawn by the hosted page in preview mode (no session).
  const [previewUrl, setPreviewUrl] = useState<string | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const draft = JSON.stringify(body());
  const latest = useRef(0);
  useEffect(() => {
    if (!isNew && !offer) return;
    const id = ++latest.current;
    const timer = setTimeout(async () => {
      try {
        const previewBody = { ...body(), slug: body().slug || 'preview', name: body().name || 'Untitled offer', product: product || 'none', plan: plan || 'none' };
        const answer = await api.post<{ url: string }>('/offers/preview', previewBody);
        if (id === latest.current) {
          setPreviewUrl(answer.url);
          setPreviewError(null);
        }
      } catch (e) {
        if (id === latest.current) setPreviewError(asApiError(e));
      }
    }, 350);
    return () => clearTimeout(timer);
  }, [draft, offer === null]);

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    await run('save', async () => {
      if (isNew && body().slug && (await api.get<Offer>(`/offers/${encodeURIComponent(body().slug)}`).then(() => true, () => false))) throw takenError('slug', 'An offer');
      const answer = isNew ? await api.post<Offer>('/offers', body()) : await api.put<Offer>(`/offers/${encodeURIComponent(offer!.slug)}`, body());
      fill(answer, product);
      setSaved(isNew ? 'Offer created. Publish it to open its checkout link.' : 'Offer saved.');
      if (isNew) navigate(`/dashboard/offers/${encodeURIComponent(answer.slug)}`, { replace: true });
    });
  };
  const setStatus = async (action: 'publish' | 'archive') => {
    setSaved(null);
    await run(action, async () => {
      fill(await api.post<Offer>(`/offers/${encodeURIComponent(offer!.slug)}/${action}`), product);
      setSaved(action === 'publish' ? 'Offer published: its checkout link works now.' : 'Offer archived.');
    });
  };

  const setPage = (i: number, change: Partial<OfferPage>) => setPages(pages.map((p, j) => (j === i ? { ...p, ...change } : p)));
  const setBlock = (i: number, b: number, block: Block | null) =>
    setPage(i, { blocks: block === null ? pages[i]!.blocks.filter((_, k) => k !== b) : pages[i]!.blocks.map((x, k) => (k === b ? block : x)) });

  const back = <Link href="/dashboard/offers">← Offers</Link>;
  if (!isNew && !offer) {
    return (
      <>
        <PageHeader title="Offer" back={back} />
        <ErrorNotice error={loaded.error ?? products.error} />
        {(loaded.loading || products.loading) && <Loading />}
      </>
    );
  }
  if (isNew && products.data && !productList.some((p) => p.plans.length)) {
    return (
      <>
        <PageHeader title="New offer" back={back} />
        <EmptyState
          title="First, a product with a plan"
          action={
            <Link class="btn btn-primary" href="/dashboard/catalog/new">
              New product
            </Link>
          }
        >
          An offer sells one plan of one product. Create a product with a plan and its price, then come back.
        </EmptyState>
      </>
    );
  }

  const shown = [...originErrorNames(error), 'slug', 'name', 'product', 'plan', 'theme.primary_color', 'theme.button_text', 'trial_period_days', 'coupon', ...pages.flatMap((p, i) => [`pages.${i}.id`, `pages.${i}.title`, `pages.${i}.type`, ...p.blocks.flatMap((_, b) => [`pages.${i}.blocks.${b}.text`, `pages.${i}.blocks.${b}.url`, `pages.${i}.blocks.${b}.items`])])];
  const published = offer?.status === 'published';
  return (
    <>
      <PageHeader
        title={isNew ? 'New offer' : offer!.name}
        back={back}
        description={offer ? <Badge status={offer.status}>{offer.status[0]!.toUpperCase() + offer.status.slice(1)}</Badge> : 'Choose what it sells, how it looks and what its pages say; the preview follows as you type.'}
        actions={
          offer && (
            <>
              {offer.status !== 'published' && (
                <Button variant="primary" busy={busy === 'publish'} error={errorOf('publish')} onClick={() => setStatus('publish')}>
                  Publish
                </Button>
              )}
              {offer.status !== 'archived' && (
                <Button variant="danger" busy={busy === 'archive'} error={errorOf('archive')} onClick={() => setStatus('archive')}>
                  Archive
                </Button>
              )}
            </>
          )
        }
      />
      {saved && <Notice tone="success">{saved}</Notice>}
      {offer && (
        <Card title="Share" id="share">
          {published ? (
            <>
              <p class="share-label" id="link-label">
                Checkout link
              </p>
              <div class="copy-field">
                <a class="copy-value" href={checkoutLink(offer.slug)} target="_blank" rel="noopener" aria-describedby="link-label">
                  {checkoutLink(offer.slug)}
                </a>
                <CopyButton text={checkoutLink(offer.slug)} label="Copy link" />
              </div>
              <p class="share-label" id="snippet-label">
                Buy button for your site (SDK)
              </p>
              <div class="copy-field snippet">
                <pre class="copy-value" aria-labelledby="snippet-label" tabIndex={0}>
                  {sdkSnippet(offer.slug)}
                </pre>
                <CopyButton text={sdkSnippet(offer.slug)} label="Copy snippet" />
              </div>
            </>
          ) : (
            <p class="muted">Publish the offer to get its checkout link and the Buy button for your site.</p>
          )}
        </Card>
      )}
      <div class="offer-editor">
        <form onSubmit={save} noValidate class="offer-form">
          <Card title="Offer" id="offer">
            <div class="form-row align-top">
              <Field label="Name" name="name" error={error}>
                {(c) => (
                  <Input
                    {...c}
                    value={name}
                    onValue={(v) => {
                      if (isNew) setPages((ps) => followName(ps, name, v));
                      set('name')(v);
                    }}
                  />
                )}
              </Field>
              <Field label="Slug" name="slug" error={error} hint={isNew ? 'In the checkout link: lower-case letters, digits and dashes. It cannot change.' : 'It cannot change.'}>
                {(c) => <Input {...c} value={slug} onValue={(v) => set('slug')(v.toLowerCase())} readOnly={!isNew} autoComplete="off" />}
              </Field>
            </div>
            <div class="form-row align-top">
              <Field label="Product" name="product" error={error}>
                {(c) => (
                  <Select
                    {...c}
                    value={product}
                    onValue={(v) => {
                      setFields((f) => ({ ...f, product: v, plan: productList.find((p) => p.key === v)?.plans[0]?.name ?? '' }));
                    }}
                  >
                    {productList.map((p) => (
                      <option key={p.key} value={p.key}>
                        {p.name ?? p.key}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
              <Field label="Plan" name="plan" error={error}>
                {(c) => (
                  <Select {...c} value={plan} onValue={set('plan')}>
                    {(chosen?.plans ?? []).map((p) => (
                      <option key={p.name} value={p.name}>
                        {p.display_name} · {formatMoney(p.charges.reduce((s, x) => s + x.amount, 0), p.currency_code)}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
            </div>
            {recurring && (
              <div class="form-row align-top">
                <Field label="Free trial (days)" name="trial_period_days" error={error} hint="Optional, 1 to 730: the buyer's card is saved and first charged when the trial ends.">
                  {(c) => <Input {...c} value={trial} onValue={set('trial')} inputMode="numeric" autoComplete="off" placeholder="No trial" />}
                </Field>
              </div>
            )}
            <div class="form-row align-top">
              <Field label="Coupon" name="coupon" error={error} hint="Optional: the id of one of your coupons. Every checkout of this offer starts with its discount; a code the buyer types replaces it.">
                {(c) => <Input {...c} value={coupon} onValue={set('coupon')} autoComplete="off" placeholder="No coupon" />}
              </Field>
            </div>
            <div class="form-row align-top">
              <Field label="Theme colour" name="theme.primary_color" error={error} hint="Buttons and accents.">
                {(c) => (
                  <div class="color-input">
                    <input type="color" value={color} onInput={(e) => set('color')((e.target as HTMLInputElement).value)} aria-label="Pick the theme colour" />
                    <Input {...c} value={color} onValue={set('color')} maxLength={7} autoComplete="off" />
                  </div>
                )}
              </Field>
              <Field label="Pay button text" name="theme.button_text" error={error}>
                {(c) => <Input {...c} value={buttonText} onValue={set('buttonText')} />}
              </Field>
            </div>
            <OriginsField
              value={origins}
              onValue={set('origins')}
              error={error}
              hint="One per line, such as https://shop.example. A page on one of these may send its own success_url and cancel_url for this offer (the organization's settings allow origins for every offer); your server may send any with its API key."
            />
          </Card>
          <Card
            title="Pages"
            id="pages"
            actions={
              <Button size="sm" onClick={() => setPages([...pages, { id: `page-${pages.length + 1}`, type: 'upsell', title: 'One more thing', blocks: [] }])}>
                Add page
              </Button>
            }
          >
            {pages.map((pg, i) => (
              <fieldset class="plan-fieldset" key={i}>
                <legend>
                  Page {i + 1}: {pg.title || pg.id}
                </legend>
                <div class="form-row align-top">
                  <Field label="Page type" name={`pages.${i}.type`} error={error}>
                    {(c) => (
                      <Select {...c} value={pg.type} onValue={(v) => setPage(i, { type: v as OfferPage['type'] })}>
                        <option value="checkout">Checkout</option>
                        <option value="upsell">Upsell</option>
                        <option value="thank_you">Thank you</option>
                      </Select>
                    )}
                  </Field>
                  <Field label="Page title" name={`pages.${i}.title`} error={error}>
                    {(c) => <Input {...c} value={pg.title} onValue={(v) => setPage(i, { title: v })} />}
                  </Field>
                  <Field label="Page id" name={`pages.${i}.id`} error={error}>
                    {(c) => <Input {...c} value={pg.id} onValue={(v) => setPage(i, { id: v })} autoComplete="off" />}
                  </Field>
                </div>
                <ol class="blocks">
                  {pg.blocks.map((block, b) => (
                    <li key={b} class="block">
                      <div class="block-head">
                        <span class="block-type">{block.type === 'features' ? 'Feature list' : block.type[0]!.toUpperCase() + block.type.slice(1)}</span>
                        <Button size="sm" variant="ghost" onClick={() => setBlock(i, b, null)} aria-label={`Remove block ${b + 1} of page ${i + 1}`}>
                          Remove
                        </Button>
                      </div>
                      {(block.type === 'heading' || block.type === 'text') && (
                        <Field label={block.type === 'heading' ? 'Heading' : 'Text'} name={`pages.${i}.blocks.${b}.text`} error={error}>
                          {(c) =>
                            block.type === 'text' ? (
                              <textarea {...c} class="input" rows={2} value={block.text} onInput={(e) => setBlock(i, b, { type: 'text', text: (e.target as HTMLTextAreaElement).value })} />
                            ) : (
                              <Input {...c} value={block.text} onValue={(v) => setBlock(i, b, { type: 'heading', text: v })} />
                            )
                          }
                        </Field>
                      )}
                      {block.type === 'features' && (
                        <Field label="Features, one per line" name={`pages.${i}.blocks.${b}.items`} error={error}>
                          {(c) => (
                            <textarea
                              {...c}
                              class="input"
                              rows={3}
                              value={block.items.join('\n')}
                              onInput={(e) => setBlock(i, b, { type: 'features', items: (e.target as HTMLTextAreaElement).value.split('\n') })}
                            />
                          )}
                        </Field>
                      )}
                      {block.type === 'image' && (
                        <div class="form-row align-top">
                          <Field label="Image URL (https)" name={`pages.${i}.blocks.${b}.url`} error={error}>
                            {(c) => <Input {...c} value={block.url} onValue={(v) => setBlock(i, b, { ...block, url: v })} />}
                          </Field>
                          <Field label="Alt text" name={`pages.${i}.blocks.${b}.alt`} error={error}>
                            {(c) => <Input {...c} value={block.alt} onValue={(v) => setBlock(i, b, { ...block, alt: v })} />}
                          </Field>
                        </div>
                      )}
                      {block.type === 'price' && <p class="muted">Shows the plan's price.</p>}
                    </li>
                  ))}
                </ol>
                <div class="form-row">
                  <Field label={`Add a block to page ${i + 1}`} name={`add-${i}`}>
                    {(c) => (
                      <Select
                        {...c}
                        value=""
                        onValue={(v) => {
                          if (v) setPage(i, { blocks: [...pg.blocks, newBlock(v as Block['type'])] });
                        }}
                      >
                        <option value="">Choose a block…</option>
                        <option value="heading">Heading</option>
                        <option value="text">Text</option>
                        <option value="features">Feature list</option>
                        <option value="price">Price</option>
                        <option value="image">Image</option>
                      </Select>
                    )}
                  </Field>
                  {pages.length > 1 && (
                    <Button size="sm" variant="ghost" onClick={() => setPages(pages.filter((_, j) => j !== i))}>
                      Remove page {i + 1}
                    </Button>
                  )}
                </div>
              </fieldset>
            ))}
          </Card>
          <OtherErrors error={error} shown={shown} />
          <div class="form-actions">
            <Button type="submit" variant="primary" busy={busy === 'save'}>
              {isNew ? 'Create offer' : 'Save changes'}
            </Button>
          </div>
        </form>
        <aside class="offer-preview" aria-label="Live preview">
          <div class="preview-head">
            <h2>Live preview</h2>
            <span class="muted">Payment is off; nothing is recorded.</span>
          </div>
          {previewError && previewError.status === 422 && <p class="muted preview-note">The preview waits for the form to be valid: {previewError.message}</p>}
          {previewUrl ? <PreviewFrame src={previewUrl} /> : <Loading label="Drawing the preview…" />}
        </aside>
      </div>
    </>
  );
}

/**
 * The hosted page in preview, as tall as the page it draws (same origin, so its height is
 * readable): the thank-you page at its end shows whole, never cut by a frame of a fixed height.
 */
function PreviewFrame({ src }: { src: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    let resize: ResizeObserver | null = null;
    const fit = () => {
      const doc = el.contentDocument;
      if (!doc?.body) return;
      setHeight(Math.ceil(doc.documentElement.scrollHeight));
      resize?.disconnect();
      resize = new ResizeObserver(() => setHeight(Math.ceil(doc.documentElement.scrollHeight)));
      resize.observe(doc.body);
    };
    el.addEventListener('load', fit);
    return () => {
      el.removeEventListener('load', fit);
      resize?.disconnect();
    };
  }, []);
  return <iframe ref={frame} class="preview-frame" src={src} title="Preview of the hosted checkout page" style={height ? { height: `${height}px` } : undefined} />;
}
