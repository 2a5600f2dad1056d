import type { FastifyReply } from 'fastify';
import { findOrAwaitStream } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import type { OfferDoc } from '../checkoutProjection.ts';
import { findOfferByRef } from '../checkoutQueries.ts';
import { offerStream } from '../domain/offer.ts';
import { offerUuidOfRef } from '../offerCommands.ts';

/** A published offer by reference for the public routes and pages (findOrAwaitStream). */
export function findPublishedOffer(services: Services, reply: FastifyReply, ref: string): Promise<OfferDoc | null> {
  return findOrAwaitStream(services, reply, {
    stream: async () => {
      const uuid = await offerUuidOfRef(services, ref);
      return uuid === null ? null : offerStream(uuid);
    },
    find: () => findOfferByRef(services.readStore, ref),
    ready: (offer) => offer.status === 'published',
  });
}
