import { deleteExpiredRecords } from '../http/oidcStorage.ts';
import { intervalJob } from '../../../platform/runtime/index.ts';

/** Records deleted per batch: each batch is one query, then a delete per record. */
const BATCH = 500;

/** Deletes the authorization server's expired records (codes, tokens, its sessions, consent pages), every OAUTH_SWEEP_INTERVAL_MS. */
export const oauthRecordsSweepJob = intervalJob({
  name: 'oauth-records-sweep',
  intervalMs: (services) => services.config.OAUTH_SWEEP_INTERVAL_MS,
  async pass(services, logger) {
    let deleted = 0;
    for (;;) {
      const batch = await deleteExpiredRecords(services.readStore, services.clock(), BATCH);
      deleted += batch;
      if (batch < BATCH) break;
    }
    if (deleted > 0) logger.info({ deleted }, 'expired OAuth records deleted');
  },
  failure: 'deleting expired OAuth records failed; retrying at the next tick',
});
