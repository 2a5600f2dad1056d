// Lint guards the dependency direction as well as the code: domain/ stays pure, and only the
// composition root (app/compose.ts) picks concrete storage adapters.
import tseslint from 'typescript-eslint';

const adapterPatterns = [
  { group: ['**/sqlite/*', '**/esdb/*', '**/mongodb/*'], message: 'Concrete adapters are chosen only in app/compose.ts.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'sdk/dist/**', 'test-results/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
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
