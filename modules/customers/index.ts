// Nothing here may import checkout or subscriptions at run time: checkout calls ensureCustomer.
export { ensureCustomer, type EnsureCustomerInput, keyHash } from './customerCommands.ts';
export { customerKeyStream, customerStream, normalizeEmail, type CustomerMode } from './domain/customer.ts';
export { CUSTOMER_LINKS, CUSTOMERS, type CustomerDoc, type LinkDoc } from './customerProjection.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export type { Customer, CustomerHistory, CustomerInvoices } from './http/customerSchemas.ts';
