import type { ReadStore } from '../../platform/readStore/index.ts';
import { WEBHOOK_ATTEMPTS, type AttemptDoc } from './webhookProjection.ts';

/** The attempts of each of `deliveryIds`, first to last: one query for a page of deliveries, not one per delivery. */
export async function attemptsByDelivery(readStore: ReadStore, deliveryIds: readonly string[]): Promise<Map<string, AttemptDoc[]>> {
  const byDelivery = new Map<string, AttemptDoc[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const attempts = await readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, { filter: { delivery_id: { $in: [...deliveryIds] } }, sort: [['attempt', 1]] });
  for (const a of attempts) byDelivery.get(a.delivery_id)?.push(a);
  return byDelivery;
}
