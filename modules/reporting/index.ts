// Answers of the reporting routes, whose inferred types the dashboard imports (type-only).
export { Event as LoggedEventSchema, SalesStats as SalesStatsSchema, TaxReport as TaxReportSchema } from './http/reportingSchemas.ts';
