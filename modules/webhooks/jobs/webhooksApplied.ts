import type { Services } from '../../../platform/runtime/index.ts';

const PROJECTION = 'webhooks';

/**
 * Resolves true once the webhooks read models have applied the log up to `position`. Only they
 * are waited for: under load the others may lag, and would hold every delivery back.
 */
export async function webhooksApplied(services: Services, position: number, timeoutMs: number): Promise<boolean> {
  const runner = services.projections;
  if (!runner) return true;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const at = runner.checkpointOf(PROJECTION);
    // A runner that does not run it here (another process does): the whole runner's word.
    if (at === undefined) return runner.waitFor(position, Math.max(0, end - Date.now()));
    if (at !== null && at >= position) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
}
