#!/usr/bin/env node
// The `tollgate` command. Installed from the package, it runs the compiled CLI in dist/. In a checkout of the
// repository (src/ is there, dist/ may be missing or older than the sources) it runs the TypeScript sources through
// tsx, a development dependency, so `node bin/tollgate.js` always runs the code beside it.
const { existsSync } = require('node:fs');
const path = require('node:path');

const sources = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
if (existsSync(sources)) {
  require('tsx/cjs');
  require(sources);
} else {
  require('../dist/cli/main.js');
}
