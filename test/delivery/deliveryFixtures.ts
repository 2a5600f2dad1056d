import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { oneTimeProduct } from '../benefits/benefitFixtures.ts';
import { zinePdf } from '../../cli/commands/demoBenefits.ts';
import type { TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const FILE_DESCRIPTION = 'The zine <b>as</b> a "PDF" & more';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A seller's digital product as a seller makes it through the API: a one-time product with a
 * published offer, a PDF uploaded (multipart) as a file benefit, and a license key benefit.
 */
export async function digitalProduct(server: TestServer, seller: { organizationId: string; token: string }, slug: string) {
  const product = await oneTimeProduct(server, seller.organizationId, slug);
  const pdf = await zinePdf(`Zine <${slug}>`, 40);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), `${slug}.pdf`);
  const uploaded = await server.fetch('/api/files', { method: 'POST', token: seller.token, body: form });
  expect(uploaded.status).toBe(201);
  const file = (await uploaded.json()) as Body;
  expect(file.sha256).toBe(sha256(pdf));
  const post = (body: unknown) =>
    server.fetch(`/api/products/${product}/benefits`, { method: 'POST', token: seller.token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // Markup in a seller's words is shown as text, never run.
  const fileBenefit = await post({ type: 'file', description: FILE_DESCRIPTION, properties: { files: [file.id] } });
  expect(fileBenefit.status).toBe(201);
  const keyBenefit = await post({ type: 'license_key', description: 'Darkroom license', properties: { prefix: 'DARK', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' } });
  expect(keyBenefit.status).toBe(201);
  await server.settle();
  return { product, pdf, file: file as { id: string; filename: string; sha256: string; size: number }, benefits: { file: ((await fileBenefit.json()) as Body).id as string, key: ((await keyBenefit.json()) as Body).id as string } };
}
