// Lint guards the dependency direction as well as the code: domain/ stays pure, only the
// composition root (app/compose.ts) picks concrete storage adapters, no run-time import cycle,
// and no layer imports one above it (see docs/architecture.md for the picture):
//   lib, domain ← sqlite ← eventStore, readStore; eventStore ← commands (no read store);
//   eventStore, readStore ← projections; commands, projections ← api, automation ← webhooks ← app ← cli ← bin
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// Every top-level folder of server code, and the folders each may not import from.
const SERVER = ['lib', 'domain', 'sqlite', 'eventStore', 'readStore', 'commands', 'projections', 'api', 'automation', 'webhooks', 'app', 'cli', 'bin', 'sdk'];
const except = (...allowed) => SERVER.filter((layer) => !allowed.includes(layer));
const layerZones = [
  { target: 'lib', from: except('lib') },
  { target: 'domain', from: except('domain') },
  { target: 'sqlite', from: except('sqlite', 'lib') },
  // The event store and the read store are siblings: neither reaches into the other.
  { target: 'eventStore', from: except('eventStore', 'sqlite', 'lib', 'domain') },
  { target: 'readStore', from: except('readStore', 'sqlite', 'lib', 'domain') },
  // The write side and the read side are siblings too: commands decide from streams, not read
  // models, so they do not reach the read store either.
  { target: 'commands', from: except('commands', 'eventStore', 'lib', 'domain') },
  { target: 'projections', from: except('projections', 'eventStore', 'readStore', 'lib', 'domain') },
  // The API and the automation worker are given app/'s Services (and the API its readiness check);
  // everything else in app/ composes them, so it sits above.
  {
    target: 'api',
    from: except('api', 'commands', 'projections', 'eventStore', 'readStore', 'lib', 'domain', 'sdk'),
    except: ['./services.ts', './readiness.ts'],
  },
  {
    target: 'automation',
    from: except('automation', 'commands', 'projections', 'eventStore', 'readStore', 'lib', 'domain'),
    except: ['./services.ts'],
  },
  // Event webhooks carry each resource as its GET route shows it, so they reuse the routes'
  // presenters, and Send Webhook's guarded delivery from automation/.
  {
    target: 'webhooks',
    from: except('webhooks', 'api', 'automation', 'commands', 'projections', 'eventStore', 'readStore', 'lib', 'domain'),
    except: ['./services.ts'],
  },
  { target: 'app', from: ['cli', 'bin', 'sdk'] },
  { target: 'cli', from: ['bin', 'sdk'] },
  // The browser SDK ships alone: it imports no server code.
  { target: 'sdk', from: except('sdk') },
  // The dashboard runs in the browser and talks to the service over HTTP only.
  { target: 'dashboard/src', from: SERVER },
];

const adapterPatterns = [
  { group: ['**/sqlite/*', '**/esdb/*', '**/mongodb/*'], message: 'Concrete adapters are chosen only in app/compose.ts.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'sdk/dist/**', 'dashboard/dist/**', 'test-results/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
      // Without these the rules skip .ts files when they follow imports (the cycle check saw nothing).
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      // Type-only imports are erased at run time, so they may point back; values may not.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: layerZones.flatMap(zoneFor) }],
    },
  },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    // Adapters may share helpers among themselves; tests build adapters to run contract suites.
    ignores: ['app/compose.ts', '**/sqlite/**', '**/esdb/**', '**/mongodb/**', 'test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: adapterPatterns }] },
  },
  {
    files: ['domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!\\.{1,2}/)', message: 'domain/ is pure: it imports nothing outside itself (no packages, no node: modules).' },
            { regex: '^\\.\\./\\.\\./', message: 'domain/ imports nothing outside domain/.' },
          ],
        },
      ],
    },
  },
);

/** One no-restricted-paths zone per forbidden folder (an `except` must lie inside its `from`). */
function zoneFor({ target, from, except: allowed = [] }) {
  return from.map((layer) => ({
    target: `./${target}`,
    from: `./${layer}`,
    ...(layer === 'app' && allowed.length ? { except: allowed } : {}),
    message: `${target}/ sits below ${layer}/ (or beside it) in the layers of docs/architecture.md; move the shared piece down instead.`,
  }));
}
