import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'scripts/infra/target/**', '.data/**', '.infra/**', '.containers/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read the environment only in a config module.' },
      ],
    },
  },
  {
    // Type-aware: in an event-driven codebase a forgotten await is a lost event or an unhandled rejection.
    files: ['libs/*/{src,test}/**/*.ts', 'services/*/{src,test}/**/*.ts', 'tools/*/{src,test}/**/*.ts', 'bench/**/*.ts', 'scripts/stack/**/*.ts', 'scripts/containers/**/*.ts', 'deploy/test/**/*.ts', 'deploy/podman/test/**/*.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // The page's scripts run in the browser (plain ES modules, type-checked through their own tsconfig.json).
    files: ['services/gateway/src/features/page/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/config/**/*.ts', '**/config.ts', '**/*.config.ts', '**/test/**/*.ts', 'libs/testing/**/*.ts', 'bench/**', 'scripts/**', 'deploy/docker/*.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
