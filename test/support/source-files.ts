import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every TypeScript source under `folder` (declarations and installed packages left out), for checks that read code. */
export function typeScriptFilesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return name === 'node_modules' ? [] : typeScriptFilesUnder(file);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [file] : [];
  });
}
