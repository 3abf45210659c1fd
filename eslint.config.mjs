import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tollgate/**', 'coverage/**', 'bin/**', '*.config.js', '*.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Jest's transforms are plain CommonJS files that Jest loads with require.
    files: ['test/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { import: importPlugin },
    settings: { 'import/resolver': { node: { extensions: ['.ts', '.js'] } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import/no-cycle': 'error',
    },
  },
  {
    // Workflow code is replayed: no Node built-ins, no I/O libraries, activities only as types.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins
              .flatMap((name) => [name, `node:${name}`])
              .map((name) => ({
                name,
                message: 'Workflow code must be deterministic: no Node built-ins.',
              })),
            { name: 'openai', message: 'Call the model from an activity.' },
            { name: '@temporalio/client', message: 'Workflows talk to Temporal through @temporalio/workflow.' },
            { name: '@temporalio/worker', message: 'Workflows cannot import the worker.' },
          ],
          patterns: [
            {
              group: ['axios', 'undici', 'node-fetch', 'got', '@slack/*', 'nodemailer'],
              message: 'No I/O in workflows.',
            },
            {
              group: ['../activities', '../activities/*'],
              allowTypeImports: true,
              message: 'Import activities as types only; call them through proxyActivities.',
            },
          ],
        },
      ],
    },
  },
);
