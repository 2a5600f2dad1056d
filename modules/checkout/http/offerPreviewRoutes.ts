import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadProductByKey } from '../../catalog/index.ts';
import { OfferImport } from '../offerImport.ts';
import { recurringTerms } from '../domain/recurringTerms.ts';
import { loadOrganization, logoPath, requireOrganization } from '../../identity/index.ts';
import { sdkAssets, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { renderCheckoutPage, renderMissingPage, type PageParams } from './hostedCheckout/renderCheckoutPage.ts';
import { offerPreviewDrafts } from './offerPreviewDrafts.ts';

/**
 * The live preview of an offer being edited, before it is saved or published: the dashboard POSTs
 * the form as it stands (the import's offer, validated the same way) and frames the answer's URL,
 * which renders the hosted checkout page in preview mode (payment off, no session, no write). The
 * draft is kept for a short while under an unguessable token (offerPreviewDrafts), and only the
 * organization that made it can view it.
 */
export const offerPreviewRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const drafts = offerPreviewDrafts(services.readStore, services.clock);

  app.post(
    '/manage/api/offers/preview',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Keep a draft offer for the live preview: answers the URL of its hosted page in preview mode (same-origin frames only, 15 minutes).',
        body: OfferImport,
        response: { 201: z.object({ url: z.string(), expires_at: z.number().int() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const offer = request.body;
      // The plan's terms give the "…today, then … per month from …" line when the product and plan exist already.
      const product = await loadProductByKey(services, organizationId, offer.product);
      const plan = product?.plans.find((p) => p.name === offer.plan);
      const amount = plan ? plan.charges.reduce((sum, c) => sum + c.amount, 0) : 0;
      const recurring = plan ? recurringTerms(plan, amount, plan.currency_code, offer.trial_period_days, Math.floor(services.clock() / 1000)) : null;
      const organization = await loadOrganization(services.store, organizationId);
      const { token, expiresAt } = await drafts.keep({
        organizationId,
        init: {
          offer: { id: offer.slug, slug: offer.slug, name: offer.name },
          theme: offer.theme,
          pages: offer.pages,
          firstPage: offer.pages[0] ?? null,
          redirects: { success_url: offer.success_url, cancel_url: offer.cancel_url },
        },
        extras: {
          recurring,
          today: plan ? amount : null,
          currency: plan?.currency_code ?? null,
          shopUrl: offer.shop_url ?? null,
          // The header names the seller, as the published page does.
          seller: organization ? { name: organization.name, logoUrl: organization.logo ? logoPath(organization.id, organization.logo) : null } : null,
        },
      });
      return reply.code(201).send({ url: `/manage/api/offers/preview/${token}`, expires_at: Math.floor(expiresAt / 1000) });
    },
  );

  app.get(
    '/manage/api/offers/preview/:token',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'The hosted checkout page of a draft offer, in preview mode (HTML).', params: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{32}$/) }) },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const draft = await drafts.find(request.params.token, organizationId);
      const nonce = randomBytes(18).toString('base64url');
      const { page } = await sdkAssets();
      reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          // The hosted page's own policy, but only the dashboard (this origin) may frame a draft.
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' https: data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'`,
        )
        .header('x-frame-options', 'SAMEORIGIN')
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store');
      const params: PageParams = { offerRef: draft?.init.offer.slug ?? '', mode: 'preview', frame: null, nonce: null, parentOrigin: null, promo: null };
      // Another organization's token answers like an expired one.
      if (!draft) {
        return reply.code(404).send(renderMissingPage(params, nonce, page, { code: 'preview_expired', title: 'This preview has expired', text: 'Change the form to draw it again.' }));
      }
      return reply.send(renderCheckoutPage(draft.init, params, nonce, page, draft.extras));
    },
  );
};
