import type { Services } from '../app/services.ts';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from '../projections/webhooks/webhookProjection.ts';
import { callAndRecord, endpointsOfPass, type DispatchOptions } from './webhookDispatch.ts';
import type { CreatedDelivery } from './webhookFanout.ts';
import { orderKey, type InFlight } from './inFlight.ts';

/**
 * Sends the deliveries the fan-out has just created, from memory: no wait for their read model,
 * no query to find them, no read of their streams. Each resource's deliveries to an endpoint go
 * one after the other, and only when no older delivery of that resource to that endpoint is
 * pending (being retried, or not yet sent); a failure stops its resource there. Whatever is not
 * sent here stays due in the read model for the dispatcher, which keeps the same order. Returns
 * how many were left to it.
 */
export async function deliverCreated(services: Services, created: readonly CreatedDelivery[], options: DispatchOptions & { inFlight: InFlight }): Promise<number> {
  const { inFlight } = options;
  const groups = new Map<string, CreatedDelivery[]>();
  for (const d of created) {
    const key = orderKey(d.state.endpoint_id, d.resource);
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  const firstAt = new Map([...groups].map(([key, group]) => [key, group[0]!.position]));
  // The read model must show what came before these deliveries for their keys to be judged by it.
  if (!(await inFlight.applied(services, new Map([...groups].map(([key, group]) => [key, group.at(-1)!.position])), 10_000))) return created.length;
  const older = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
    filter: {
      status: 'pending',
      endpoint_id: { $in: [...new Set(created.map((d) => d.state.endpoint_id))] },
      resource: { $in: [...new Set(created.map((d) => d.resource))] },
    },
  });
  for (const p of older) {
    const key = orderKey(p.endpoint_id, p.resource);
    if (p.position < (firstAt.get(key) ?? -1)) groups.delete(key);
  }
  const endpoints = endpointsOfPass(services);
  let sent = 0;
  const records: Array<Promise<void>> = [];
  const failed = (id: string) => (error: unknown) => {
    options.logger.error({ err: error, delivery: id }, 'webhook delivery could not be attempted');
  };
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const d of group) {
        const id = d.state.id!;
        const endpoint = await endpoints(d.state.endpoint_id);
        // Disabled or deleted since the fan-out: the dispatcher abandons it.
        if (!endpoint?.enabled || options.signal.aborted || !inFlight.claim(id)) return;
        let made: Awaited<ReturnType<typeof callAndRecord>> = null;
        try {
          made = await inFlight.slot(() => (options.signal.aborted ? Promise.resolve(null) : callAndRecord(services, d, endpoint, options)));
        } catch (error) {
          failed(id)(error);
        }
        if (!made) return inFlight.release(id);
        sent += 1;
        records.push(made.recording.catch(failed(id)).finally(() => inFlight.release(id)));
        // A failure is retried on its schedule by the dispatcher; the resource's later deliveries wait for it there.
        if (!made.outcome.success) return;
      }
    }),
  );
  await Promise.all(records);
  return created.length - sent;
}
