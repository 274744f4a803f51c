import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'scripts/infra/target/**', '.data/**', '.infra/**', 'coverage/**'] },
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
    files: ['**/config/**/*.ts', '**/config.ts', '**/*.config.ts', '**/test/**/*.ts', 'libs/testing/**/*.ts', 'bench/**', 'scripts/**', 'deploy/docker/*.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
