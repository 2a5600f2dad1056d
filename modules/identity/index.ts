export { loadOrganization, loadUser, organizationLogo } from './accountCommands.ts';
export { csrfTokenMatches } from './accountSecrets.ts';
export { hashBytes, hashSecret, parseApiKey, secretMatches } from './credentials.ts';
export { mayCallRoute, requestedScopes, splitGrantable } from './domain/bearerAccess.ts';
export { addressLines, logoPath, organizationDecider, type OrganizationEvent, type OrganizationLogo, organizationStream } from './domain/organization.ts';
export { type Role, userDecider, userStream } from './domain/user.ts';
export { cookieValue, crossSite, csrfTokenOf, requireOrganization, requireOwner, requireSession } from './http/sessionAuth.ts';
export { API_KEY_USE_EVERY_SECONDS, organizationExists, recordApiKeyUse } from './identityCommands.ts';
export { API_KEYS, type ApiKeyDoc, identityProjection, type MemberDoc, MEMBERS, type UserDoc, USERS } from './identityProjection.ts';
// Answers of the management routes, whose inferred types the dashboard imports (type-only).
export { SessionAnswer as SessionAnswerSchema } from '../../platform/http/index.ts';
export { ApiKey as ApiKeySchema, Member as MemberSchema, Organization as OrganizationSchema, Passkey as PasskeySchema, PendingInvitation as PendingInvitationSchema, UserSession as UserSessionSchema } from './http/identitySchemas.ts';
