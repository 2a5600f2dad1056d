export { requireAuth } from './http/auth.ts';
export { bearerAccess, manageAccess, type RouteAccess } from './http/routeAccess.ts';
export { routeListing } from './http/routeListing.ts';
// Answers of the management routes, whose inferred types the dashboard imports (type-only).
export { Connection as OAuthConnectionSchema, OAuthApp as OAuthAppSchema } from './http/oauthAppRoutes.ts';
