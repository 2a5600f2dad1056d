import { backfillCustomers } from '../../modules/customers/customerBackfill.ts';
import type { CliCommand } from '../command.ts';

export const customersBackfillCommand: CliCommand = {
  path: ['customers', 'backfill'],
  usage: 'customers backfill',
  description: 'Give the purchases completed before customers existed their customer (safe to run again: nothing is linked twice).',
  async run({ services, commandContext, catchUp }) {
    const result = await backfillCustomers(services.store, (organizationId) => commandContext(organizationId));
    await catchUp();
    return result;
  },
  format: (r: { sessions: number; linked: number; customers: number }) =>
    `${r.sessions} purchases without a customer found, ${r.linked} linked, ${r.customers} customers made`,
};
