// Jest's transform for the project's TypeScript (jest.config.js): esbuild, the compiler the child processes' code is
// built with already (compiled-sources.ts), with tsconfig.json's options. Types are not checked here — `npm run
// typecheck` does that, over the same files — so each file is only stripped of its types and made CommonJS: about a
// millisecond a file, against ts-jest's twenty, and no TypeScript compiler to load in every Jest worker.
// Plain CommonJS: Jest requires it with Node's own `require`.
const { transformSync, version } = require('esbuild');
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const tsconfigFile = path.resolve(__dirname, '../../tsconfig.json');
const tsconfigRaw = readFileSync(tsconfigFile, 'utf8');
const options = {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'external',
  tsconfigRaw,
  // `import()` becomes a `require()` in a promise, as TypeScript writes it for CommonJS: Jest's module system runs
  // native dynamic imports only with Node's --experimental-vm-modules.
  supported: { 'dynamic-import': false },
};

module.exports = {
  process(sourceText, sourcePath) {
    const { code, map } = transformSync(sourceText, { ...options, sourcefile: sourcePath });
    // An object: Jest hands it to istanbul as the map to instrument against.
    return { code, map: JSON.parse(map) };
  },
  getCacheKey(sourceText, sourcePath, transformOptions) {
    return createHash('sha256')
      .update(`typescript-transform-2 esbuild ${version}\0${tsconfigRaw}\0`)
      .update(transformOptions?.instrument ? 'instrument\0' : '\0')
      .update(`${sourcePath}\0`)
      .update(sourceText)
      .digest('hex');
  },
};
