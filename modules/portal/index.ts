// Answers of the management routes, whose types the dashboard imports (type-only).
export { PortalSettingsSchema, type PortalSettingsAnswer } from './http/portalApiRoutes.ts';
export { portalPath } from './portalAccess.ts';
