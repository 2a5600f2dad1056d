import { runImport } from '../../app/import/importFile.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import type { TestServer } from '../helpers/testServer.ts';

/** A product with a one-time plan and a published offer `slug` of it, made by the import; its id (route key). */
export async function oneTimeProduct(server: TestServer, organizationId: string, slug: string): Promise<string> {
  const content = offerContent();
  await runImport(
    { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
    {
      products: [{ key: `${slug}-product`, name: slug, plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 1500 }] }] }],
      offers: [{ slug, name: content.name, product: `${slug}-product`, plan: 'once', theme: content.theme, pages: content.pages, published: true }],
    },
  );
  return (await loadProductByKey(server.cliContext(), organizationId, `${slug}-product`))!.routeKey;
}
