import { secretBox } from '../../platform/lib/index.ts';
import type { Services } from '../../platform/runtime/index.ts';

/** What confidential outbox messages (a sign-in link) are sealed with: a purpose of their own under the service's data secret. */
export const outboxBox = (services: Services) => secretBox(services.secrets.data, 'commerce outbox messages');
