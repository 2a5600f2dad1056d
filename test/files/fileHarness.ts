import { createHash } from 'node:crypto';
import { runImport } from '../../app/import/importFile.ts';
import { createBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantDecider } from '../../modules/benefits/domain/benefitGrant.ts';
import { benefitGrantStream, type GrantSource } from '../../modules/benefits/domain/benefitTypes.ts';
import { grantIdFor } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import type { TestServer } from '../helpers/testServer.ts';

/** A seller's product with a file benefit listing `files`, as modules/benefits makes it. */
export async function productWithFiles(server: TestServer, organizationId: string, slug: string, files: string[]) {
  await runImport(
    { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
    { products: [{ key: `${slug}-product`, name: slug, plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 900 }] }] }] },
  );
  const product = (await loadProductByKey(server.cliContext(organizationId), organizationId, `${slug}-product`))!;
  const { benefit } = await createBenefit(server.cliContext(organizationId), { organizationId, product: product.routeKey, type: 'file', description: 'Files', properties: { files } });
  await server.settle();
  return { productId: product.routeKey, benefitId: benefit.id };
}

/** Grants the benefit to the customer as the grant subscriber would (its command on the grant's stream). */
export async function grant(server: TestServer, organizationId: string, b: { productId: string; benefitId: string }, customerId: string, source: GrantSource = { type: 'checkout_session', id: `cs_${customerId}` }) {
  const grantId = grantIdFor(b.benefitId, source);
  await handleCommand(server.cliContext(organizationId), benefitGrantStream(grantId), benefitGrantDecider, {
    type: 'Grant',
    regrant: false,
    grant: { grant_id: grantId, organization_id: organizationId, mode: 'test', benefit_id: b.benefitId, benefit_type: 'file', product_id: b.productId, customer_id: customerId, source, cause: 'checkout.completed', invoice_id: null, granted_at: Math.floor(server.services.clock() / 1000) },
  });
  await server.settle();
  return grantId;
}

export async function revoke(server: TestServer, organizationId: string, grantId: string) {
  await handleCommand(server.cliContext(organizationId), benefitGrantStream(grantId), benefitGrantDecider, { type: 'Revoke', cause: 'refund', now: Math.floor(server.services.clock() / 1000) });
  await server.settle();
}

/** Deterministic bytes of any size, without holding them: block i is sha256(seed|i) repeated. */
export function* patternChunks(size: number, seed = 'x', chunk = 64 * 1024): Generator<Buffer> {
  let sent = 0;
  let i = 0;
  while (sent < size) {
    const block = createHash('sha256').update(`${seed}|${i++}`).digest();
    const n = Math.min(chunk, size - sent);
    const out = Buffer.allocUnsafe(n);
    for (let o = 0; o < n; o += block.length) block.copy(out, o, 0, Math.min(block.length, n - o));
    sent += n;
    yield out;
  }
}

export function bytesOf(size: number, seed = 'x'): Buffer {
  return Buffer.concat([...patternChunks(size, seed)]);
}

/** A multipart body (field `file`, and any fields before it) as one buffer, for small files. */
export function multipartBody(file: { name: string; type: string; bytes: Buffer }, fields: Record<string, string> = {}, fieldName = 'file') {
  const boundary = `----commerce${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fieldName}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
