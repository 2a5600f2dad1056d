import type { Services } from '../app/services.ts';
import { callAndRecord, callInSlot, endpointsOfPass, oldestPending, type DispatchOptions } from './webhookDispatch.ts';
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
  const stopped = new Set<string>();
  for (const d of created) {
    const key = orderKey(d.state.endpoint_id, d.resource);
    // Claimed at once, before anything is awaited: the dispatcher, which may find them in the
    // read model while these wait for a slot, leaves them alone. (One it holds already, and what
    // follows it for the same resource, are its own.)
    if (stopped.has(key) || !inFlight.claim(d.state.id!)) {
      stopped.add(key);
      continue;
    }
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  const leave = (group: readonly CreatedDelivery[]) => {
    for (const d of group) inFlight.release(d.state.id!);
  };
  let sent = 0;
  const records: Array<Promise<void>> = [];
  try {
    // The read model must show what came before these deliveries for their keys to be judged by it.
    if (!(await inFlight.applied(services, new Map([...groups].map(([key, group]) => [key, group.at(-1)!.position])), 10_000))) return created.length;
    const oldest = await oldestPending(services, created.map((d) => ({ endpoint_id: d.state.endpoint_id, resource: d.resource })));
    for (const [key, group] of groups) {
      if ((oldest.get(key) ?? Number.POSITIVE_INFINITY) < group[0]!.position) {
        leave(group);
        groups.delete(key);
      }
    }
    const endpoints = endpointsOfPass(services);
    await Promise.all(
      [...groups.entries()].map(async ([key, group]) => {
        for (const [i, d] of group.entries()) {
          const made = await callInSlot(d.state.id!, options, records, async () => {
            const endpoint = await endpoints(d.state.endpoint_id);
            // Disabled or deleted since the fan-out: the dispatcher abandons it.
            return endpoint?.enabled ? callAndRecord(services, d, endpoint, options) : null;
          });
          // What is left of the resource's deliveries goes to the dispatcher, in order.
          groups.set(key, group.slice(made ? i + 1 : i));
          if (!made) return;
          sent += 1;
          // A failure is retried on its schedule by the dispatcher; the resource's later deliveries wait for it there.
          if (!made.outcome.success) return;
        }
      }),
    );
  } finally {
    // Released only once recorded: the dispatcher must not call again what is being recorded.
    await Promise.allSettled(records);
    for (const group of groups.values()) leave(group);
  }
  return created.length - sent;
}
