import type { Services } from '../../platform/runtime/index.ts';

/** A buyer as the portal knows them: the organization's customer. */
export type PortalBuyer = { id: string; email: string; name: string | null };

export async function buyerByEmail(_services: Services, _organizationId: string, _email: string): Promise<PortalBuyer | null> {
  return null;
}

export async function buyerById(_services: Services, _organizationId: string, _id: string): Promise<PortalBuyer | null> {
  return null;
}
