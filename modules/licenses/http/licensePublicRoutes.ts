import type { FastifyReply, FastifyRequest, FastifySerializerCompiler } from 'fastify';
import fastifyCors from '@fastify/cors';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../../platform/domain/index.ts';
import { commandContext, ErrorSchema, HttpError } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { statusAt, type Activation } from '../domain/licenseKey.ts';
import { activateLicenseKey, deactivateLicenseKey, findLicenseKeyByKey, type IssuedKey } from '../licenseCommands.ts';
import { licenseKeyHash } from '../licenseKeyCodec.ts';
import { licenseTokenSigner, TOKEN_TTL_SECONDS } from '../licenseTokens.ts';
import { LicenseStatusSchema } from './licenseSchemas.ts';

/** What an app learns of its key (Lemon Squeezy's `license_key`, with the product it is for). */
const LicenseAnswer = z.object({
  id: z.string(),
  status: LicenseStatusSchema,
  activation_limit: z.number().int().nullable(),
  activation_usage: z.number().int(),
  expires_at: z.number().int().nullable(),
  product_id: z.string(),
  livemode: z.boolean(),
});
const InstanceAnswer = z.object({ id: z.string(), name: z.string(), created_at: z.number().int() });

/** Our error shape (message, code) with Lemon Squeezy's (`error`, the flag false, the license when known). */
const LicenseError = ErrorSchema.extend({
  error: z.string().optional(),
  activated: z.literal(false).optional(),
  valid: z.literal(false).optional(),
  deactivated: z.literal(false).optional(),
  license: LicenseAnswer.optional(),
});
const errors = { 404: LicenseError, 409: LicenseError, 422: LicenseError, 429: ErrorSchema };

// Lemon Squeezy's clients send `license_key`; ours may send `key`.
const KeyField = z.string().trim().min(1).max(200);
const keyOf = (body: { key?: string | undefined; license_key?: string | undefined }) => body.key ?? body.license_key ?? '';
const keyFields = { key: KeyField.optional(), license_key: KeyField.optional() };
const hasKey = (b: { key?: string | undefined; license_key?: string | undefined }) => b.key !== undefined || b.license_key !== undefined;
const keyRequired = { message: 'The key field is required.', path: ['key'] };
const InstanceId = z.string().trim().min(1).max(100);

const ActivateBody = z.object({ ...keyFields, instance_name: z.string().trim().min(1).max(255) }).refine(hasKey, keyRequired);
const ValidateBody = z.object({ ...keyFields, instance_id: InstanceId.optional() }).refine(hasKey, keyRequired);
const DeactivateBody = z.object({ ...keyFields, instance_id: InstanceId }).refine(hasKey, keyRequired);

const ActivateAnswer = z.object({ activated: z.literal(true), error: z.null(), instance: InstanceAnswer, license: LicenseAnswer });
const ValidateAnswer = z.object({ valid: z.boolean(), error: z.string().nullable(), license: LicenseAnswer, instance: InstanceAnswer.nullable(), token: z.string() });
const DeactivateAnswer = z.object({ deactivated: z.literal(true), error: z.null(), license: LicenseAnswer });
const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });

/**
 * A 200 is built by the handler from the key's state (typed against its schema when compiling),
 * so it is written with JSON.stringify alone, as the catch route does; the default serializer
 * would zod-encode it first. Error answers keep the default.
 */
const answerSerializer = <T>(route: Parameters<FastifySerializerCompiler<T>>[0]) =>
  route.httpStatus === '200' ? (answer: unknown) => JSON.stringify(answer) : serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);

const MESSAGES = {
  disabled: 'This license key is disabled.',
  expired: 'This license key has expired.',
  instance: 'This instance is not activated on this license key.',
} as const;

/** Under /api/licenses, so the CORS plugin's wildcard preflight route covers these routes alone. */
export const licensePublicRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  await app.register(licenseApi, { services, prefix: '/api/licenses' });
};

const licenseApi: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // Apps call from anywhere (a desktop app's webview, a browser extension): no credential, any origin.
  await app.register(fastifyCors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'], allowedHeaders: ['Content-Type', 'Accept'], exposedHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'], maxAge: 600 });
  const signer = await licenseTokenSigner(services.secrets.jwt);
  const now = () => Math.floor(services.clock() / 1000);

  // Per address on each route (the plugin's hook, with its headers); per key across the three,
  // asked once the body is parsed, so one leaked key cannot be hammered from many addresses.
  const perAddress = { max: services.config.LICENSE_RATE_LIMIT_PER_ADDRESS, timeWindow: 60_000 };
  const keyLimiter = app.createRateLimit({
    max: services.config.LICENSE_RATE_LIMIT_PER_KEY,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `license-key:${licenseKeyHash(keyOf(request.body as { key?: string; license_key?: string }))}`,
  });
  const perKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const limit = await keyLimiter(request);
    if (!limit.isAllowed && limit.isExceeded) {
      void reply.header('retry-after', String(limit.ttlInSeconds));
      throw new HttpError(429, 'too_many_attempts', 'Too Many Attempts.');
    }
  };

  const license = (state: IssuedKey, at: number) => ({
    id: state.key.id,
    status: statusAt(state, at),
    activation_limit: state.activation_limit,
    activation_usage: state.activations.length,
    expires_at: state.expires_at,
    product_id: state.key.product_id,
    livemode: state.key.mode === 'live',
  });

  /** The key the body names, or the 404 every unknown key gets alike. */
  const keyOrNotFound = async (body: { key?: string | undefined; license_key?: string | undefined }, flag: 'activated' | 'valid' | 'deactivated') => {
    const state = await findLicenseKeyByKey(services.store, keyOf(body));
    if (!state) throw new LicenseRefusal(404, { message: 'License key not found.', code: 'license_key_not_found', error: 'license_key not found.', [flag]: false });
    return state;
  };

  /** A refusal of the domain, in both shapes, with the license as it stands. */
  const refused = (error: unknown, flag: 'activated' | 'deactivated', state: IssuedKey, at: number): never => {
    if (!(error instanceof DomainError)) throw error;
    // A race lost on every retry (concurrent_update) is the client's to send again: 409, as elsewhere.
    const status = error.kind === 'not_found' ? 404 : error.kind === 'conflict' ? 409 : 422;
    throw new LicenseRefusal(status, { message: error.message, code: error.code, error: error.message, [flag]: false, license: license(state, at) });
  };

  const route = (summary: string, description: string) => ({ summary, description, tags: ['licenses'] });
  /** A route the key authenticates: limited per address and per key. */
  const keyRoute = { config: { rateLimit: perAddress }, preHandler: perKey, serializerCompiler: answerSerializer };
  const ctxFor = (request: FastifyRequest, state: IssuedKey) => commandContext(services, request, state.key.organization_id);

  app.post(
    '/activate',
    {
      ...keyRoute,
      schema: {
        ...route('Activates a license key on one instance (a machine, an install).', 'Public: the key is the credential. Over the activation limit: 422 `activation_limit_reached`; a disabled or expired key: 422 `license_key_disabled` / `license_key_expired`.'),
        body: ActivateBody,
        response: { 200: ActivateAnswer, ...errors },
      },
    },
    async (request) => {
      const state = await keyOrNotFound(request.body, 'activated');
      const ctx = ctxFor(request, state);
      const at = ctx.metadata.occurred_at;
      const result = await activateLicenseKey(ctx, state.key.id, request.body.instance_name).catch((error: unknown) => refused(error, 'activated', state, at));
      return { activated: true as const, error: null, instance: result.instance, license: license(result.state, at) };
    },
  );

  app.post(
    '/validate',
    {
      ...keyRoute,
      schema: {
        ...route(
          'Validates a license key, and the instance when given.',
          '`valid` is true when the key is active or inactive (neither disabled nor expired) and the instance, if given, is activated on it. `token` is the answer signed (EdDSA, Ed25519; keys at /api/licenses/jwks.json) for checking offline.',
        ),
        body: ValidateBody,
        response: { 200: ValidateAnswer, ...errors },
      },
    },
    async (request) => {
      const state = await keyOrNotFound(request.body, 'valid');
      const at = now();
      const answer = license(state, at);
      const instance: Activation | null = request.body.instance_id === undefined ? null : (state.activations.find((a) => a.id === request.body.instance_id) ?? null);
      const error =
        answer.status === 'disabled' ? MESSAGES.disabled : answer.status === 'expired' ? MESSAGES.expired : request.body.instance_id !== undefined && !instance ? MESSAGES.instance : null;
      const valid = error === null;
      // Trusted offline until it would have expired, at most a week.
      const exp = valid && state.expires_at !== null ? Math.min(at + TOKEN_TTL_SECONDS, state.expires_at) : at + TOKEN_TTL_SECONDS;
      const token = await signer.sign({ sub: state.key.id, valid, error, license: answer, instance }, at, exp);
      return { valid, error, license: answer, instance, token };
    },
  );

  app.post(
    '/deactivate',
    {
      ...keyRoute,
      schema: {
        ...route('Deactivates one instance of a license key, freeing its activation.', 'Public: the key is the credential. An instance not activated on the key: 404 `instance_not_found`.'),
        body: DeactivateBody,
        response: { 200: DeactivateAnswer, ...errors },
      },
    },
    async (request) => {
      const state = await keyOrNotFound(request.body, 'deactivated');
      const ctx = ctxFor(request, state);
      const at = ctx.metadata.occurred_at;
      const after = await deactivateLicenseKey(ctx, state.key.id, request.body.instance_id).catch((error: unknown) => refused(error, 'deactivated', state, at));
      return { deactivated: true as const, error: null, license: license(after, at) };
    },
  );

  app.get(
    '/jwks.json',
    {
      config: { rateLimit: perAddress },
      schema: { ...route('The public keys validation tokens are signed with (JWKS).', 'Cache it; a `kid` not in the cached set means fetch it again.'), response: { 200: Jwks, 429: ErrorSchema } },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=3600');
      return signer.jwks;
    },
  );

  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof LicenseRefusal) return reply.code(error.statusCode).send(error.body);
    throw error;
  });
};

/** A refusal answered in the License API's shape. */
class LicenseRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: z.infer<typeof LicenseError>,
  ) {
    super(body.message);
  }
}
