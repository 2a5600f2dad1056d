// Nothing here may import checkout or subscriptions at run time: checkout calls ensureCustomer.
export { ensureCustomer, type EnsureCustomerInput } from './customerCommands.ts';
export { customerStream, type CustomerMode } from './domain/customer.ts';
export { CUSTOMERS, type CustomerDoc } from './customerProjection.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export type { Customer, CustomerHistory, CustomerInvoices } from './http/customerSchemas.ts';
export { CUSTOMER_LINKS, type LinkDoc as CustomerLinkDoc } from './customerProjection.ts';
