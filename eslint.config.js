// Lint guards the layout (docs/architecture.md, "Layers"): a module reaches another only
// through its index.ts, domain/ folders stay pure, platform/ builds on no feature, nothing but
// cli/, bin/ and tests imports app/, only app/compose.ts picks concrete storage adapters, and no
// run-time import cycle.
import { readdirSync } from 'node:fs';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** The folders under `dir`: every part of platform/ and every module, as they are on disk. */
const foldersOf = (dir) => readdirSync(new URL(`./${dir}/`, import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

// Every top-level folder of server code. platform/ holds what every feature builds on, and
// modules/ the features.
const SERVER = ['platform', 'modules', 'app', 'cli', 'bin', 'sdk'];
const except = (...allowed) => SERVER.filter((layer) => !allowed.includes(layer));
const PLATFORM = foldersOf('platform').map((part) => `platform/${part}`);
const platformExcept = (...allowed) => PLATFORM.filter((part) => !allowed.includes(part));
const layerZones = [
  // platform/ builds on nothing above it: no feature, no composition root.
  { target: 'platform', from: except('platform') },
  { target: 'platform/domain', from: platformExcept('platform/domain') },
  { target: 'platform/lib', from: platformExcept('platform/lib', 'platform/domain') },
  { target: 'platform/sqlite', from: platformExcept('platform/sqlite', 'platform/lib') },
  // The event store and the read store are siblings: neither reaches into the other.
  { target: 'platform/eventStore', from: platformExcept('platform/eventStore', 'platform/sqlite', 'platform/lib', 'platform/domain') },
  { target: 'platform/readStore', from: platformExcept('platform/readStore', 'platform/sqlite', 'platform/lib', 'platform/domain') },
  // The file store builds on the kernel and the small helpers only.
  { target: 'platform/files', from: platformExcept('platform/files', 'platform/lib', 'platform/domain') },
  // The guarded client builds on nothing else of platform/ but the kernel's URL rule.
  { target: 'platform/outbound', from: platformExcept('platform/outbound', 'platform/domain') },
  // Modules build on platform/ and each other.
  { target: 'modules', from: except('modules', 'platform') },
  { target: 'app', from: ['cli', 'bin', 'sdk'] },
  { target: 'cli', from: ['bin', 'sdk'] },
  // The browser SDK ships alone: it imports no server code (but the pure money and size formats,
  // which it bundles, so the checkout page writes them as the service does).
  { target: 'sdk', from: except('sdk'), except: ['./domain/moneyFormat.ts', './domain/byteSize.ts'] },
  // The dashboard runs in the browser and talks to the service over HTTP only; it takes the
  // answers' types from the modules (dashboardModuleImports below keeps those type-only).
  { target: 'dashboard/src', from: except('modules'), except: ['./domain/moneyFormat.ts', './domain/byteSize.ts'] },
];

// A module reaches another only through that module's index.ts (its domain/ files excepted:
// pure code, which the domain/ folders of other modules import directly).
const MODULES = foldersOf('modules');
const moduleZones = MODULES.flatMap((target) =>
  MODULES.filter((other) => other !== target).map((other) => ({
    target: `./modules/${target}`,
    from: `./modules/${other}`,
    except: ['./index.ts', './domain'],
    message: `modules/${target} uses modules/${other} through its index.ts only.`,
  })),
);
// ...and outside domain/, not even the domain/ files: those come through index.ts too.
const domainZones = MODULES.flatMap((target) =>
  MODULES.filter((other) => other !== target).map((other) => ({
    target: [`./modules/${target}/*.ts`, `./modules/${target}/!(domain)/**/*`],
    from: `./modules/${other}/domain/**/*`,
    message: `modules/${target} uses modules/${other} through its index.ts only.`,
  })),
);
// ...and platform/ through the index.ts of each of its parts (es/, http/, runtime/…).
const platformZones = PLATFORM.map((part) => ({
  target: './modules',
  from: `./${part}`,
  except: ['./index.ts'],
  message: `modules/ use ${part}/ through its index.ts only.`,
}));
// A module's write code decides on streams: no read store, no projection, no query.
const writeSideZone = {
  target: ['./modules/*/*Commands.ts', './modules/*/*Management.ts', './modules/*/*Import.ts', './modules/*/livePayments.ts'],
  from: ['./platform/readStore/**/*', './modules/*/*Projection.ts', './modules/*/*Queries.ts'],
  message: 'Write code decides on streams; it reads no read model.',
};
// Nothing but bin/, cli/ and tests imports the composition root.
const appZone = { target: ['./platform', './modules', './sdk'], from: './app', message: 'app/ is the composition root: only bin/, cli/ and tests import it.' };

// The dashboard takes types from a module's index.ts only, with `import type` (erased before
// esbuild bundles, so no server code reaches the browser; `import { type X }` would keep the
// module as a side-effect import).
const dashboardModuleImports = {
  files: ['dashboard/src/**'],
  rules: {
    '@typescript-eslint/no-import-type-side-effects': 'error',
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: '(^|/)modules/\\w+/index\\.ts$', allowTypeImports: true, message: 'The dashboard imports types only from modules (import type).' },
          { regex: '(^|/)modules/(?!\\w+/index\\.ts$)', message: "The dashboard imports a module through its index.ts only." },
        ],
      },
    ],
  },
};

// Files that still reach across a boundary, each for a reason noted in docs/architecture.md.
const BOUNDARY_EXCEPTIONS = [
  'platform/http/errors.ts',
  'platform/http/sdkAssets.ts',
  'platform/runtime/services.ts',
  'platform/import/importFile.ts',
];

const adapterPatterns = [
  { group: ['**/sqlite/*', '**/esdb/*', '**/mongodb/*', '**/dataDir/*'], message: 'Concrete adapters are chosen only in app/compose.ts.' },
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
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones.flatMap(zoneFor), ...moduleZones, ...domainZones, ...platformZones, writeSideZone, appZone] }],
    },
  },
  {
    // Type-only imports are erased at run time, so they may point back; values may not. Nothing
    // imports a test or a benchmark, so no cycle can run through one: checking them would walk the
    // whole app's graph again from every test file.
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    ignores: ['test/**', 'bench/**'],
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
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
    ignores: ['app/compose.ts', '**/sqlite/**', '**/esdb/**', '**/mongodb/**', '**/dataDir/**', 'test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: adapterPatterns }] },
  },
  dashboardModuleImports,
  { files: BOUNDARY_EXCEPTIONS, rules: { 'import-x/no-restricted-paths': 'off' } },
  ...pureDomain(['platform/domain/**'], '^(?!\\./)'),
  ...pureDomain(['modules/*/domain/**'], '^(?!\\./|\\.\\./\\.\\./\\w+/domain/|\\.\\./\\.\\./\\.\\./platform/domain/)'),
);

/** One no-restricted-paths zone per forbidden folder (an `except` must lie inside its `from`). */
function zoneFor({ target, from, except: allowed = [] }) {
  return from.map((layer) => ({
    target: `./${target}`,
    from: `./${layer}`,
    ...(allowed.length ? { except: allowed } : {}),
    message: `${target}/ sits below ${layer}/ (or beside it) in the layers of docs/architecture.md; move the shared piece down instead.`,
  }));
}

/** domain/ folders are pure: they import other domain code only (no packages, no node: modules). */
function pureDomain(files, allowedOnly) {
  return [
    {
      files,
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ regex: allowedOnly, message: 'domain/ is pure: it imports nothing but domain code (platform/domain/ and the domain/ folders of modules).' }] },
        ],
      },
    },
  ];
}
