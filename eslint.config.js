// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const uiOnly = ['ink', 'ink-text-input', 'react', 'react/*', 'ink-*'];
const infraOnly = ['execa', 'clipboardy', 'conf'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'source/config/config-validator.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // STYLE.md section 1: the core never loads the UI stack, and only infra/ touches
    // execa, clipboardy and conf.
    files: ['source/**/*.ts', 'source/**/*.tsx'],
    ignores: ['source/ui/**', 'source/infra/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: uiOnly, message: 'Only source/ui/ may import ink, react or ink-text-input (STYLE.md section 1).' },
          { group: infraOnly, message: 'Only source/infra/ may import execa, clipboardy or conf (STYLE.md section 1).' },
        ],
      }],
    },
  },
  {
    files: ['source/infra/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: uiOnly, message: 'Only source/ui/ may import ink, react or ink-text-input (STYLE.md section 1).' }],
      }],
    },
  },
);
