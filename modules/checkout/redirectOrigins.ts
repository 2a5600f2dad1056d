import { offerDecider, offerStream } from './domain/offer.ts';
import { disallowedRedirects, type RedirectUrls } from './domain/redirectUrls.ts';
import { fold, DomainError } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { loadOrganization } from '../identity/index.ts';

/**
 * Refuses the success_url and cancel_url of a caller without the seller's credential unless the
 * seller allowed their origin, on the offer or for the whole organization. Read from the offer's
 * and the organization's streams, so an origin just removed is refused at once.
 */
export async function assertRedirectsAllowed(store: EventStore, offer: { uuid: string; organization_id: string }, urls: RedirectUrls): Promise<void> {
  if (urls.success_url === undefined && urls.cancel_url === undefined) return;
  const [offerEvents, organization] = await Promise.all([store.readStream(offerStream(offer.uuid)), loadOrganization(store, offer.organization_id)]);
  const offerState = fold(offerDecider, offerEvents as never);
  const allowed = new Set([
    ...(offerState.status !== 'none' ? (offerState.allowed_redirect_origins ?? []) : []),
    ...(organization?.allowed_redirect_origins ?? []),
  ]);
  const errors = disallowedRedirects(urls, allowed);
  const messages = Object.values(errors).flat();
  if (messages.length === 0) return;
  const more = messages.length - 1;
  throw new DomainError('invalid', 'redirect_url_not_allowed', more > 0 ? `${messages[0]} (and ${more} more error${more === 1 ? '' : 's'})` : messages[0]!, errors);
}
