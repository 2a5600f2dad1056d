import { z } from 'zod';
import { ErrorSchema } from '../schemas.ts';

/** Marks a management route in the OpenAPI document: its own tag, the session cookie as security. */
export const manageRoute = { tags: ['manage'], security: [{ session: [] }] } as const;
export const manageErrors = { 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema };

export const Role = z.enum(['owner', 'member']);
export const OrganizationWithRole = z.object({ id: z.string(), name: z.string(), timezone: z.string(), role: Role });

export const SessionAnswer = z.object({
  user: z.object({ id: z.string(), email: z.string(), has_password: z.boolean(), passkeys: z.number().int() }),
  current_organization: OrganizationWithRole.nullable(),
  organizations: z.array(OrganizationWithRole).describe("The user's other organizations."),
  csrf_token: z.string().describe('Send it back as the X-CSRF-Token header on every state-changing request.'),
  session: z.object({ id: z.string(), signed_in_at: z.number().int(), expires_at: z.number().int(), idle_timeout: z.number().int() }),
});

const b64url = z.string().min(1).max(16384).regex(/^[A-Za-z0-9_-]*={0,2}$/, 'must be base64url');
const extensions = z.record(z.string(), z.unknown()).default({});

/** The frame a WebAuthn response has whatever the ceremony: `response` is the ceremony's own. */
const credentialResponse = <T extends z.ZodRawShape>(response: T) =>
  z.object({
    id: b64url,
    rawId: b64url,
    type: z.literal('public-key'),
    response: z.object(response),
    clientExtensionResults: extensions,
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  });

/** A WebAuthn registration response as the browser library serialises it (RegistrationResponseJSON). */
export const RegistrationResponse = credentialResponse({
  clientDataJSON: b64url,
  attestationObject: b64url,
  transports: z.array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])).max(8).optional(),
  authenticatorData: b64url.optional(),
  publicKey: b64url.optional(),
  publicKeyAlgorithm: z.number().int().optional(),
});

/** A WebAuthn authentication response (AuthenticationResponseJSON). */
export const AuthenticationResponse = credentialResponse({
  clientDataJSON: b64url,
  authenticatorData: b64url,
  signature: b64url,
  userHandle: b64url.optional(),
});

export const Email = z.string().trim().max(254).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be a valid email address');
/** NIST 800-63B: at least 8 characters, long passphrases welcome (argon2 takes any length; 256 bounds the work). */
export const Password = z.string().min(8).max(256);
export const Id = z.string().min(1).max(128).regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, - and _');
