// Jest loads modules as CommonJS, and more and more packages ship ES modules only (ai 7, @ai-sdk/*, and what
// they import). Node itself loads them through require(esm); Jest's module system cannot before Node 24.9. So
// every file of an ES-module package (nearest package.json says "type": "module", or a .mjs file) becomes
// CommonJS through esbuild as Jest reads it; CommonJS files pass through untouched. Results are cached.
const { transformSync } = require('esbuild');
const { createHash } = require('node:crypto');
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const typeOfFolder = new Map();

function isModuleFile(sourcePath) {
  if (sourcePath.endsWith('.mjs')) return true;
  if (sourcePath.endsWith('.cjs')) return false;
  let folder = path.dirname(sourcePath);
  const visited = [];
  let type;
  while (type === undefined) {
    if (typeOfFolder.has(folder)) {
      type = typeOfFolder.get(folder);
      break;
    }
    visited.push(folder);
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest)) {
      try {
        type = JSON.parse(readFileSync(manifest, 'utf8')).type ?? 'commonjs';
      } catch {
        type = 'commonjs';
      }
      break;
    }
    const parent = path.dirname(folder);
    if (parent === folder) type = 'commonjs';
    folder = parent;
  }
  for (const seen of visited) typeOfFolder.set(seen, type);
  return type === 'module';
}

module.exports = {
  process(sourceText, sourcePath) {
    if (!isModuleFile(sourcePath)) return { code: sourceText };
    const { code, map } = transformSync(sourceText, {
      loader: 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: sourcePath,
    });
    return { code, map };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha256').update('esm-to-cjs-2').update(sourcePath).update(sourceText).digest('hex');
  },
};
