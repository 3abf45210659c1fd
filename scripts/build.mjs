// `npm run build` (and so `npm pack`, whose prepack runs it): dist/ from src/ with tsconfig.build.json, which fails on
// a type error, and the files the compiled code finds beside itself (the bash tool's network launcher and resolv.conf).
//
// TOLLGATE_BUILD_WITHOUT_TYPE_CHECK=1 emits the same dist/ without checking types (`tsc --noCheck`): for the consumer
// test (test/package/consumer.test.ts), whose run checks the same sources beside it (`npm run checks` in .ci/run), so
// that it does not pay a second type check of src/ (about 40% of the build's CPU). Nothing else sets it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const withoutTypeCheck = process.env.TOLLGATE_BUILD_WITHOUT_TYPE_CHECK === '1';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.build.json', ...(withoutTypeCheck ? ['--noCheck'] : [])],
  { cwd: root, stdio: 'inherit' },
);
if (compiled.status !== 0) {
  const why = compiled.error
    ? `tsc did not run: ${compiled.error.message}`
    : `tsc ended with ${compiled.status ?? compiled.signal}`;
  process.stderr.write(`The build failed: ${why}.\n`);
  process.exit(1);
}
// The same two files test/support/compiled-sources.ts copies beside the tests' compiled code.
for (const file of ['outbound-network.sh', 'sandbox-resolv.conf'])
  copyFileSync(path.join(root, 'src/tools/workspace', file), path.join(root, 'dist/tools/workspace', file));
