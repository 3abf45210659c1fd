import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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

// A cached workflow evaluates every module it imports in its own scope: schemas built there cost every
// waiting turn their memory again. Workflow code takes protocol types, and values from zod-free modules.
const workflowSchemaImports = [
  { group: ['zod', 'zod/*'], message: 'No schemas in workflow code: check input at the edge or in an activity.' },
];
const workflowProtocolIndex = ['../protocol', '../protocol/index', '../../protocol', '../../protocol/index'].map(
  (name) => ({
    name,
    allowTypeImports: true,
    message:
      'Import protocol types only here (values from their zod-free modules, e.g. ../../protocol/denial-and-error-outputs).',
  }),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tollgate/**', 'coverage/**', 'bin/**', '*.config.js', '*.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Jest's transforms, its runtime and the transform pass: plain CommonJS files that Jest (or a thread) loads as they are.
    files: ['test/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // A bench worker's preload (`node --require`), plain CommonJS: it runs before any TypeScript loader.
    files: ['bench/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly', process: 'readonly', setInterval: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The project's own scripts (`npm run checks`): ES modules run by Node.
    files: ['scripts/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    // Type information from the type check's own program (tsconfig.json, which includes every .ts file linted here; a
    // file outside it fails to parse). The project service lints the same files with the same rules, but took about a
    // third more CPU for the whole lint (measured: 50-57 s against 36-38 s).
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
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
            ...workflowProtocolIndex,
          ],
          patterns: [
            {
              group: ['axios', 'undici', 'node-fetch', 'got', '@slack/*', 'nodemailer'],
              message: 'No I/O in workflows.',
            },
            {
              group: ['../activities', '../activities/*', '../../activities', '../../activities/**'],
              allowTypeImports: true,
              message: 'Import activities as types only; call them through proxyActivities.',
            },
            ...workflowSchemaImports,
          ],
        },
      ],
    },
  },
  {
    // A sender's value is never turned into text by its own methods: String() or a template of an object calls
    // its toString/valueOf, which a JSON payload can name ({"toString": "x"}) and make throw in every task.
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-base-to-string': ['error', { checkUnknown: true }],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true, allowAny: false, allowNever: false },
      ],
      '@typescript-eslint/restrict-plus-operands': 'error',
    },
  },
  {
    // The lazily loaded schema checks are the only workflow module that builds schemas.
    files: ['src/workflows/guards/schema-checks.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
