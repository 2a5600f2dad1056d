import { z } from 'zod';
import { Role } from '../../../platform/http/index.ts';

// The answers of identity's management routes (the dashboard infers its types from these).

const AddressOut = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string(),
  region: z.string().nullable(),
  country: z.string(),
});

export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  timezone: z.string(),
  address: AddressOut.nullable(),
  vat_number: z.string().nullable().describe('The VAT number receipts, invoices and credit notes print under the address.'),
  brand_color: z.string().nullable().describe('`#rrggbb`: the accent of the hosted customer portal (its buttons, links and header); null: the default blue.'),
  logo_url: z.string().nullable().describe('The logo (PNG or JPEG) at a public URL that changes with its content.'),
  allowed_redirect_origins: z.array(z.string()).describe('Origins on which a caller without an API key may send success_url and cancel_url, for every offer.'),
});

export const Member = z.object({
  id: z.string().describe('The user id of a member; the invitation id (`inv_…`) of a person invited.'),
  email: z.string(),
  role: Role,
  status: z.enum(['active', 'invited']).describe('`invited`: a pending invitation, not yet a member.'),
  joined_at: z.number().int().nullable(),
  invitation_expires_at: z.number().int().nullable(),
});

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  user_id: z.string(),
  user_email: z.string().nullable().describe('Whose key it is: its creator, whose current role bounds what it may do (null if unknown).'),
  created_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  revoked_at: z.number().int().nullable(),
  last_used_at: z.number().int().nullable().describe('When a request last authenticated with the key, to within five minutes; null if never.'),
});

export const Passkey = z.object({
  id: z.string().describe('The credential id (base64url).'),
  name: z.string(),
  registered_at: z.number().int(),
  last_used_at: z.number().int().nullable(),
});

/** One of the signed-in person's live sessions. */
export const UserSession = z.object({
  id: z.string(),
  current: z.boolean(),
  method: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  signed_in_at: z.number().int(),
  last_seen_at: z.number().int(),
  expires_at: z.number().int(),
});

/** An invitation to an organization waiting for the signed-in person. */
export const PendingInvitation = z.object({
  id: z.string(),
  organization: z.object({ id: z.string(), name: z.string() }),
  role: Role,
  invited_at: z.number().int(),
  expires_at: z.number().int(),
});
