// Lint config: typescript-eslint's recommended rules; `any` is banned in src/ (boundaries take unknown).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'test/fixtures/',
      'coverage/',
      'examples/python/',
      'test/client/openapi.d.ts',
      'clients/typescript/src/openapi.ts',
      'clients/typescript/dist/',
      'clients/python/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // The boundary of confinement: tools, engines, the contract, policies, routes and HTTP never touch the file
    // system or start processes themselves. Workspace I/O and commands belong in src/runtime/inside (run
    // by the session runtime, inside the sandbox); tools reach them through ctx.workspace.
    files: [
      'src/tools/**/*.ts',
      'src/code/**/*.ts',
      'src/contract/**/*.ts',
      'src/engine/**/*.ts',
      'src/policies/**/*.ts',
      'src/edit/**/*.ts',
      'src/project/**/*.ts',
      'src/todos/**/*.ts',
      'src/routes/**/*.ts',
      'src/http/**/*.ts',
      'src/protocols/**/*.ts',
    ],
    ignores: [
      // Loads plugin modules from the operator's plugin directory (not a workspace).
      'src/contract/plugins.ts',
      // Checks that the data dir and the workspaces base directory are writable (never inside one).
      'src/routes/health.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            'node:fs',
            'fs',
            'node:fs/promises',
            'fs/promises',
            'fast-glob',
            'node:child_process',
            'child_process',
            'execa',
          ].map((name) => ({
            name,
            message:
              'Workspace I/O and commands run in the session runtime (src/runtime/inside); use ctx.workspace.',
          })),
        },
      ],
    },
  },
  {
    // The operator console's ES modules run in the browser.
    files: ['console/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'AbortController',
          'Blob',
          'Event',
          'FormData',
          'Node',
          'TextDecoderStream',
          'URL',
          'URLSearchParams',
          'clearInterval',
          'clearTimeout',
          'confirm',
          'document',
          'fetch',
          'location',
          'navigator',
          'sessionStorage',
          'setInterval',
          'setTimeout',
          'window',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
