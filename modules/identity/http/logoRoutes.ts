import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { notFound } from '../../../platform/domain/index.ts';
import { organizationLogo } from '../accountCommands.ts';

const Params = z.object({
  organization: z.string().min(1).max(64),
  file: z.string().regex(/^[0-9a-f]{32}\.(png|jpg)$/, 'The logo address is not valid.'),
});

/**
 * The seller's logo, public: its URL names its content hash, so it is cached for good, and every logo
 * an organization had stays reachable for the emails that show it.
 */
export async function logoRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/logos/:organization/:file',
    { schema: { summary: "An organization's logo (PNG or JPEG), at the URL its settings answer names", params: Params } },
    async (request, reply) => {
      const [hash, extension] = request.params.file.split('.') as [string, string];
      const logo = await organizationLogo(services.store, request.params.organization, hash);
      if (!logo || (logo.content_type === 'image/png') !== (extension === 'png')) throw notFound('Logo');
      return reply
        .type(logo.content_type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(Buffer.from(logo.data, 'base64'));
    },
  );
}
