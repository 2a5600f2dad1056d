import type { FastifyPluginAsync, RawServerDefault } from 'fastify';
import type { Projection } from '../es/projection.ts';
import type { ImportSection } from '../import/importSection.ts';
import type { BackgroundJob, Services } from './services.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each module picks its own type provider (zod or none)
export type RoutePlugin = FastifyPluginAsync<{ services: Services }, RawServerDefault, any>;

/**
 * What a feature module gives the composition root; app/modules.ts lists them all. Routes and
 * jobs load when the server or a worker starts them: a CLI command that composes the stores needs
 * the projections alone.
 */
export type FeatureModule = Readonly<{
  name: string;
  /** Its read models. */
  projections: readonly Projection[];
  /** Its routes on the public API and its hosted pages. */
  routes: () => Promise<readonly RoutePlugin[]>;
  /** Its routes under /manage/api, the dashboard's. */
  manageRoutes: () => Promise<readonly RoutePlugin[]>;
  /** Its subscribers and schedulers. */
  jobs: () => Promise<readonly BackgroundJob[]>;
  /** Its sections of `commerce import`, in the order they apply. */
  importSections: readonly ImportSection[];
}>;
