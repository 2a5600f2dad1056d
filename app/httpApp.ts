import fastifyRateLimit from '@fastify/rate-limit';
import { MonotonicRateLimitStore } from '../platform/http/plugins/monotonicRateLimitStore.ts';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Services } from '../platform/runtime/services.ts';
import { bodyDeadline } from '../platform/http/bodyDeadline.ts';
import { answerClientError, answerFrameworkError, registerErrorHandlers } from '../platform/http/errors.ts';
import { exceedsJsonDepth, jsonTooDeep } from '../platform/http/jsonDepth.ts';
import { authPlugin } from '../modules/oauth/http/auth.ts';
import { sessionAuthPlugin } from '../modules/identity/http/sessionAuth.ts';
import { jsonErrorsPlugin } from '../platform/http/plugins/jsonErrors.ts';
import { observabilityPlugin } from './observability.ts';
import { readYourWritesPlugin } from '../platform/http/plugins/readYourWrites.ts';
import { securityHeadersPlugin } from '../platform/http/plugins/securityHeaders.ts';
import { quietConnectionsOnClose } from '../platform/http/quietConnectionsOnClose.ts';
import { redactApiKeys, redactSecretPath, secretPathStart } from '../platform/http/redactUrl.ts';
import { requestIdFor, setCommonHeaders } from '../platform/http/responseHeaders.ts';
import { openApiOperationsOnly } from '../modules/automation/http/anyHttpMethod.ts';
import { docsRoutes } from './docsRoutes.ts';
import { dashboardRoutes } from '../platform/http/dashboard/dashboardRoutes.ts';
import { manageRoutes } from './manageRoutes.ts';
import { modules } from './modules.ts';
import { openApiWebhooks } from '../modules/webhooks/http/webhookSchemas.ts';

export type AppOptions = {
  /** A pino logger config, or false (tests). Secrets are redacted either way. */
  logger?: FastifyServerOptions['logger'];
};

export type RegisteredRoute = { method: string; url: string; config?: unknown; schema?: unknown };

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far, one entry per method. */
    registeredRoutes: () => readonly RegisteredRoute[];
  }
  interface FastifyContextConfig {
    /** The path itself is a secret (a receipt link, a catch URL): the access log redacts it. */
    secretPath?: boolean;
  }
}

/**
 * TRUST_PROXY as fastify takes it. A hop count trusts that many proxies in front of the service,
 * as Express does: fastify itself reads a number as "trust nobody" (it cannot check the nearest
 * peer), so the count is given as a function of the hop instead.
 */
function trustProxyOption(trust: Services['config']['TRUST_PROXY']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  // The static starts of the routes whose path is a secret, filled as routes are registered.
  const secretPathStarts: string[][] = [];
  const app = Fastify({
    logger:
      options.logger === undefined || options.logger === false
        ? false
        : {
            ...(typeof options.logger === 'object' ? options.logger : {}),
            redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
            // The last word on every line, whatever logged it (a 404's message names the URL, an
            // error may quote a header): an API key is recognised by its shape and redacted.
            hooks: {
              ...(typeof options.logger === 'object' ? options.logger.hooks : {}),
              streamWrite: (line: string) => redactApiKeys(line),
            },
            serializers: {
              req: (req: { method: string; url: string; id: string; ip?: string; is404?: boolean; routeOptions?: { url?: string; config?: { secretPath?: boolean } } }) => ({
                id: req.id,
                method: req.method,
                url: redactSecretPath(
                  req.url,
                  // Anything but a routed request (no routeOptions) is judged as one that reached no route.
                  { pattern: req.routeOptions?.url ?? null, secret: req.routeOptions?.config?.secretPath === true, matched: req.routeOptions !== undefined && req.is404 !== true },
                  secretPathStarts,
                ),
                ip: req.ip,
              }),
            },
          },
    genReqId: (req) => requestIdFor(req.headers),
    bodyLimit: 1024 * 1024,
    // The upload allowance; every other request is held to REQUEST_TIMEOUT_MS by bodyDeadline.
    requestTimeout: Math.max(services.config.REQUEST_TIMEOUT_MS, services.config.UPLOAD_TIMEOUT_MS),
    // Node checks for late requests every connectionsCheckingInterval, and only once headersTimeout
    // is no longer than requestTimeout (fastify sets requestTimeout after creating the server).
    http: {
      headersTimeout: Math.min(60_000, services.config.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(services.config.REQUEST_TIMEOUT_MS / 4))),
    },
    clientErrorHandler: answerClientError,
    // A URL the router cannot decode, or a path parameter over maxParamLength: answered before
    // any hook runs, so in our shape here rather than fastify's (which echoes the URL).
    frameworkErrors: answerFrameworkError,
    trustProxy: trustProxyOption(services.config.TRUST_PROXY),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  // fastify parses text/plain by default, so a JSON route handed text would get past the media
  // type and fail validation (422) as a string. Routes take JSON only; the catch route adds its own parsers.
  app.removeContentTypeParser('text/plain');
  // fastify's own JSON parser (a __proto__ or constructor.prototype key refused, as by default),
  // after a scan of the text for nesting deeper than MAX_JSON_DEPTH.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (exceedsJsonDepth(body as string)) return done(jsonTooDeep(), undefined);
    parseJson(request, body as string, done);
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandlers(app);
  bodyDeadline(app, services.config.REQUEST_TIMEOUT_MS);
  quietConnectionsOnClose(app);
  // Every route, as registered: tests enumerate them to fuzz and check each one.
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', () => routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, config: route.config, schema: route.schema });
    if (route.config?.secretPath) secretPathStarts.push(secretPathStart(route.url));
  });

  // Callback-style hooks (here and in the plugins): an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    setCommonHeaders(reply, request.id);
    done();
  });

  await app.register(fastifySwagger, {
    openapi: {
      // 3.1: the version with a `webhooks` section (the event webhooks' payloads are described there).
      openapi: '3.1.0',
      info: {
        title: 'Commerce service API',
        description: 'Offers, pricing, invoices and checkout. Protected routes take `Authorization: Bearer <api key>`, or an OAuth access token an app was granted (docs/oauth.md).',
        version: '0.1.0',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (csk_key_…, every route of its organization), or an OAuth access token (the routes its scopes name; see /.well-known/oauth-authorization-server).' },
          session: { type: 'apiKey', in: 'cookie', name: 'commerce_session', description: 'A signed-in person (management routes); writes also need the X-CSRF-Token header.' },
        },
      },
      tags: [{ name: 'manage', description: 'Management routes for signed-in people (session cookie), under /manage/api.' }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) =>
      'openapiObject' in document ? { ...openApiOperationsOnly(document.openapiObject), webhooks: openApiWebhooks() as never } : document.swaggerObject,
  });
  await app.register(securityHeadersPlugin);
  await app.register(jsonErrorsPlugin);
  await app.register(observabilityPlugin, { services });
  await app.register(authPlugin, { services });
  await app.register(sessionAuthPlugin, { services });
  await app.register(readYourWritesPlugin, { services });
  // Routes opt in with `config: { rateLimit: { max, timeWindow, keyGenerator } }`.
  await app.register(fastifyRateLimit, {
    global: false,
    store: MonotonicRateLimitStore,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      message: 'Too Many Attempts.',
      code: 'too_many_attempts',
      retryAfter: context.after,
    }),
  });

  const moduleRoutes = await Promise.all(modules.map((m) => m.routes()));
  for (const route of moduleRoutes.flat()) await app.register(route, { services });
  await app.register(dashboardRoutes, { services });
  await app.register(manageRoutes, { services });
  await app.register(docsRoutes);
  return app;
}
