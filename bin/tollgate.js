#!/usr/bin/env node
// Runs the TypeScript CLI directly; tsx is a dependency so `npx tollgate` works from a fresh clone.
require('tsx/cjs');
require('../src/cli/main.ts');
