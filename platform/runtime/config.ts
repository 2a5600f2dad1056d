import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { z } from 'zod';
import { esdbConnectionStringProblem } from './eventStoreUrl.ts';

/** The named ranges fastify's trustProxy (proxy-addr) knows. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An IPv4 or IPv6 address, optionally with a CIDR prefix, or a named range. */
function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const slash = entry.indexOf('/');
  const family = isIP(slash === -1 ? entry : entry.slice(0, slash));
  if (family === 0) return false;
  if (slash === -1) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Which peers may name the client in X-Forwarded-For (and the scheme and host of links in
 * X-Forwarded-Proto/-Host): `false` (nobody; the socket's address is the client), `true`
 * (anybody), a hop count, or addresses, CIDRs and named ranges, comma-separated.
 */
const TrustProxy = z
  .string()
  .trim()
  .transform((value, ctx): boolean | number | string[] => {
    if (value === 'false' || value === '0') return false;
    if (value === 'true') return true;
    if (/^\d{1,3}$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    const wrong = entries.find((entry) => !isAddressOrRange(entry));
    if (wrong === undefined) return entries;
    ctx.addIssue({
      code: 'custom',
      message: `expected true, false, a hop count, or comma-separated addresses and CIDRs (loopback, linklocal, uniquelocal too); ${JSON.stringify(wrong)} is none of these`,
    });
    return z.NEVER;
  });

/**
 * A whole number written in decimal digits, as in paths and queries: z.coerce.number() (Number())
 * also takes `1e3`, `0x10` and ` 12 `, which nobody means in a port or a limit.
 */
const whole = (number: z.ZodNumber) => z.string().regex(/^\d+$/, 'expected a whole number in decimal digits').transform(Number).pipe(number);

/** Comma-separated hosts or addresses, lower-cased, IPv6 without its brackets. */
const hostList = z
  .string()
  .default('')
  .transform((s) => s.split(',').map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter((h) => h !== ''));

const port = whole(z.number().int().min(0).max(65535));

/** Every setting the service reads from its environment. A wrong value stops the start with one line. */
export const ConfigSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  /** Absolute links (pagination, catch URLs) use this; otherwise they follow the request's host. */
  BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /**
   * A request's headers and body must arrive within this time, or the connection gets 408 and is
   * closed: a client trickling a body byte by byte cannot hold a connection (and a file
   * descriptor) for ever. Fastify's default is no limit.
   */
  REQUEST_TIMEOUT_MS: whole(z.number().int().min(100).max(600_000)).default(30_000),
  /** How long a file upload (POST /api/files, up to 512 MiB) may take to arrive once its caller is authenticated: an hour by default. */
  UPLOAD_TIMEOUT_MS: whole(z.number().int().min(1000).max(86_400_000)).default(3_600_000),
  /**
   * Behind a reverse proxy every request comes from the proxy's address, so per-client rate limits
   * (checkout, promos) would put every buyer in one bucket; trusting the proxy makes the client's
   * address the one it forwards. Off by default: trusting a header anyone can send lets a client
   * pick its own address, and so its own rate limit.
   */
  TRUST_PROXY: TrustProxy.default(false),
  /** HS256 secret for service_jwt; when unset one is generated once into DATA_DIR. */
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  /**
   * 64 hex digits (32 bytes): the AES-256-GCM key that seals payment-provider credentials (Stripe
   * secret keys, webhook signing secrets) in the event log. When unset one is generated once into
   * DATA_DIR; set it on the production profile, where every process must hold the same key.
   */
  DATA_ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'DATA_ENCRYPTION_KEY must be 64 hex digits (32 bytes)').optional(),
  /** Stripe.js, loaded by the hosted checkout page of live sessions (its origin is let through the page's CSP). */
  STRIPE_JS_URL: z.url({ protocol: /^https?$/ }).default('https://js.stripe.com/v3/'),
  /** Where the Stripe API is reached: Stripe's own unless set (tests point these at loopback). */
  STRIPE_API_HOST: z.string().min(1).optional(),
  STRIPE_API_PORT: port.optional(),
  STRIPE_API_PROTOCOL: z.enum(['https', 'http']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Production profile: both set selects EventStoreDB + MongoDB instead of the embedded SQLite file. */
  EVENTSTORE_URL: z
    .string()
    .min(1)
    .superRefine((url, ctx) => {
      const problem = esdbConnectionStringProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /**
   * CSP frame-ancestors of the hosted checkout page: who may frame it. `*` (any http/https site)
   * lets sellers embed the SDK anywhere; list origins (space-separated) to restrict it.
   */
  FRAME_ANCESTORS: z
    .string()
    .trim()
    .regex(/^(?:\*|'self'|'none'|https?:\/\/[A-Za-z0-9.*:[\]-]+)(?:\s+(?:\*|'self'|https?:\/\/[A-Za-z0-9.*:[\]-]+))*$/, "FRAME_ANCESTORS must be *, 'self', 'none' or space-separated http(s) origins")
    .default('*'),
  /** Serves the SDK example page at /examples/sdk; on unless NODE_ENV=production. */
  SDK_EXAMPLES: z.enum(['on', 'off']).optional(),
  NODE_ENV: z.string().default('development'),
  MONGODB_URL: z.string().min(1).optional(),
  /** Public checkout routes: requests per client address and route within the window. */
  CHECKOUT_RATE_LIMIT: whole(z.number().int().min(1)).default(120),
  CHECKOUT_RATE_LIMIT_WINDOW_SECONDS: whole(z.number().int().min(1)).default(60),
  /** How often the expiry job looks for checkout sessions past their expiry. */
  CHECKOUT_EXPIRY_INTERVAL_MS: whole(z.number().int().min(10)).default(30_000),
  SUBSCRIPTION_BILLING_INTERVAL_MS: whole(z.number().int().min(10)).default(30_000),
  /** How often expired OAuth records (codes, tokens, sessions, consent pages) are deleted. */
  OAUTH_SWEEP_INTERVAL_MS: whole(z.number().int().min(10)).default(600_000),
  /** The MongoDB database holding read models, checkpoints and leases. */
  MONGODB_DB: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'MONGODB_DB must be 1-63 letters, digits, _ or -').default('commerce'),
  /**
   * Whether `serve` runs the projections in its own process. auto: yes on the embedded profile,
   * no on the production profile (a `commerce worker projections` process does, and every API
   * process waits for its checkpoints to read its own writes).
   */
  RUN_PROJECTIONS: z.enum(['auto', 'true', 'false']).default('auto'),
  /** Whether `serve` runs the background jobs (automation); auto as for RUN_PROJECTIONS. */
  RUN_BACKGROUND_JOBS: z.enum(['auto', 'true', 'false']).default('auto'),
  /**
   * Whether `serve` runs its projections (and background jobs) on a worker thread of their own,
   * leaving the main thread to HTTP. auto: yes when the machine has more than one core.
   */
  SUBSCRIBER_THREAD: z.enum(['auto', 'true', 'false']).default('auto'),
  /** How long a worker's lease on a projection or a job lasts unless renewed (a third of it). */
  LEASE_TTL_MS: whole(z.number().int().min(1000).max(600_000)).default(15_000),
  /** Embedded profile: how long a write waits for another process's transaction on the file before answering 503. */
  SQLITE_BUSY_TIMEOUT_MS: whole(z.number().int().min(0).max(600_000)).default(5000),
  /** Catch URLs: requests per trigger per window (429 above). */
  CATCH_RATE_LIMIT_MAX: whole(z.number().int().min(1)).default(600),
  CATCH_RATE_LIMIT_WINDOW_MS: whole(z.number().int().min(100)).default(60_000),
  /** GET /api/promos/{slug}: requests per client IP per minute. */
  PROMO_RATE_LIMIT_MAX: whole(z.number().int().min(1)).default(300),
  /** The public License API: requests per client address, and per license key, per minute (429 above). */
  LICENSE_RATE_LIMIT_PER_ADDRESS: whole(z.number().int().min(1)).default(300),
  LICENSE_RATE_LIMIT_PER_KEY: whole(z.number().int().min(1)).default(60),
  /** A buyer's download link (one file, one customer): requests per minute (429 above), so a leaked link cannot flood the log with downloads. */
  DOWNLOAD_RATE_LIMIT_PER_LINK: whole(z.number().int().min(1)).default(60),
  /** Hosts or addresses outbound webhooks may reach even when private (tests, self-hosting): `127.0.0.1,localhost`. */
  WEBHOOK_ALLOW_HOSTS: hostList,
  /** A call succeeds on a 2xx whose headers and body arrive within this time (Svix counts 15 s). */
  WEBHOOK_TIMEOUT_MS: whole(z.number().int().min(10)).default(15_000),
  WEBHOOK_CONNECT_TIMEOUT_MS: whole(z.number().int().min(10)).default(5_000),
  /** Attempts per call (network errors, 429 and 5xx are retried), and the first back-off (doubling). */
  WEBHOOK_MAX_ATTEMPTS: whole(z.number().int().min(1).max(10)).default(4),
  WEBHOOK_RETRY_BASE_MS: whole(z.number().int().min(0)).default(1_000),
  /**
   * Receipts go out through this SMTP server (smtp://user:pass@host:587, smtps://… for TLS from
   * the start). Unset: receipts stay in the outbox (`commerce outbox list`).
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** The From of receipt emails. */
  RECEIPT_FROM: z.string().min(3).default('Receipts <receipts@localhost>'),
  /** SMTP hosts an organization's own settings may name even when private or loopback, on any port (tests, self-hosting). */
  SMTP_ALLOW_HOSTS: hostList,
  /** First wait after a failed send (doubling, up to an hour), and how often the outbox is looked at. */
  RECEIPT_RETRY_BASE_SECONDS: whole(z.number().int().min(1).max(3600)).default(30),
  RECEIPT_POLL_INTERVAL_MS: whole(z.number().int().min(50)).default(5_000),
  /** How buyers' VAT numbers are checked: their format only, or also with the EU's VIES (modules/tax). */
  TAX_ID_VERIFIER: z.enum(['format', 'vies']).default('format'),
  VIES_URL: z.url({ protocol: /^https?$/ }).default('https://ec.europa.eu/taxation_customs/vies/rest-api'),
  /** VIES is asked at checkout: past this the number counts as `unavailable` and the sale goes on. */
  VIES_TIMEOUT_MS: whole(z.number().int().min(10).max(60_000)).default(5_000),
  /** Hosts VIES_URL may name even when private or loopback (tests, a local proxy). */
  VIES_ALLOW_HOSTS: hostList,
  /** Workflows the automation worker runs at once. */
  AUTOMATION_CONCURRENCY: whole(z.number().int().min(1).max(256)).default(16),
});

export type Config = z.infer<typeof ConfigSchema>;

/** EventStoreDB + MongoDB rather than the embedded SQLite file. */
export function isProductionProfile(config: Config): boolean {
  return Boolean(config.EVENTSTORE_URL && config.MONGODB_URL);
}

/** Resolves an auto|true|false setting: auto means yes on the embedded profile only. */
export function runsInApi(config: Config, setting: 'RUN_PROJECTIONS' | 'RUN_BACKGROUND_JOBS'): boolean {
  const value = config[setting];
  return value === 'auto' ? !isProductionProfile(config) : value === 'true';
}

/** Resolves SUBSCRIBER_THREAD: auto means yes with a core to spare (one thread only adds its hand-offs there). */
export function usesSubscriberThread(config: Config, cores: number = availableParallelism()): boolean {
  return config.SUBSCRIBER_THREAD === 'auto' ? cores > 1 : config.SUBSCRIBER_THREAD === 'true';
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as in most twelve-factor apps.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  if (Boolean(parsed.data.EVENTSTORE_URL) !== Boolean(parsed.data.MONGODB_URL)) {
    throw new ConfigError('invalid configuration: EVENTSTORE_URL and MONGODB_URL go together; set both or neither');
  }
  return parsed.data;
}
