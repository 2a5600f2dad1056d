import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import type { Logger } from '../../../platform/es/index.ts';
import { followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import type { BenefitGrantEvent } from '../domain/licenseKey.ts';
import { grantIdOfStream, issueLicenseKey, loadLicenseKeyBenefit, revokeLicenseKey } from '../licenseCommands.ts';

export const LICENSE_KEY_ISSUER_CHECKPOINT = 'job:license-keys';

/** Grants and revocations in log order, so a grant revoked and granted again in one batch ends granted. */
async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const recorded of events) {
    const event = recorded as unknown as BenefitGrantEvent;
    const ctx = reactionContext(services.store, services.clock(), recorded, 'license-keys');
    if (event.type === 'BenefitGranted') {
      const grant = event.data;
      if (grant.benefit_type !== 'license_key') continue;
      const benefit = await loadLicenseKeyBenefit(services.store, grant.product_id, grant.benefit_id);
      // Deleted since: its grants are revoked next, a key would only be disabled at once.
      if (!benefit) {
        logger.info({ grant: grant.grant_id, benefit: grant.benefit_id }, 'license key benefit not found; no key issued');
        continue;
      }
      await issueLicenseKey(ctx, services.secrets.data, grant, benefit);
    } else if (event.type === 'BenefitRevoked') {
      await revokeLicenseKey(ctx, grantIdOfStream(recorded), event.data.revoked_at);
    }
  }
}

/**
 * Issues a key for each license_key grant, disables it when the grant is revoked and enables the same
 * key when it is granted again; each decides nothing the second time (delivery is at least once).
 */
export const licenseKeyIssuerJob: BackgroundJob = {
  name: 'license-keys',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: LICENSE_KEY_ISSUER_CHECKPOINT,
      streamPrefixes: ['benefit_grant-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `delete the checkpoint ${LICENSE_KEY_ISSUER_CHECKPOINT} to look at every grant again (a key is issued once per grant)`,
      failure: 'issuing license keys failed; retrying from its checkpoint',
    });
  },
};
