import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { joinLinesWithin } from './cap-text';
import { globToRegExp } from './glob-pattern';
import { openInWorkspace } from './open-in-workspace';
import { walkFiles } from './walk-files';
import type { WorkspaceSettings } from './workspace-settings';
import { workspaceRelativePath } from './workspace-path';

/** The most paths `glob` returns; past this the model should narrow its pattern rather than page. */
export const maxGlobResults = 500;

const globInput = z.object({
  pattern: z.string().min(1).describe('Glob such as "**/*.ts" or "src/*.{js,json}", relative to path.'),
  path: z.string().default('.').describe('Folder to search in, relative to the workspace. Default: the workspace.'),
});

/** `glob`: the files in the workspace whose paths match a pattern. */
export function createGlobTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'glob',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'Find files by path pattern. "**" matches any number of folders, "*" any characters but "/", "?" one ' +
      'character, "{a,b}" either. The pattern is matched against paths relative to path ("*.ts" only matches at ' +
      'its top level; use "**/*.ts" for any depth). Returns the matching file paths relative to the workspace, ' +
      `one per line, sorted, at most ${maxGlobResults}. Skips node_modules and .git.`,
    inputSchema: globInput,
    needsApproval: false,
    execute: async (input) => {
      const matcher = globToRegExp(normalisePattern(input.pattern));
      const { handle, target: folder, shownPath: shownFolder } = await openFolder(settings.root, input.path);
      const matches: string[] = [];
      let capped = false;
      try {
        for await (const relative of walkFiles(handle, folder)) {
          if (!matcher.test(relative)) continue;
          if (matches.length === maxGlobResults) {
            capped = true;
            break;
          }
          matches.push(workspaceRelativePath(settings.root, `${folder}/${relative}`));
        }
      } finally {
        await handle.close();
      }
      if (matches.length === 0)
        return `[No files match "${input.pattern}" under "${shownFolder}"; try another pattern or path.]`;
      matches.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
      const listing = joinLinesWithin(matches, settings.maxOutputBytes);
      if (!capped && listing.count === matches.length) return listing.text;
      return (
        `${listing.text}\n[Capped: showing ${listing.count} files${capped ? '' : ` of ${matches.length}`}; ` +
        'use a narrower pattern or path to see the rest.]'
      );
    },
  });
}

function normalisePattern(pattern: string): string {
  if (pattern.startsWith('/')) {
    throw new Error(`Glob "${pattern}" is absolute; give a pattern relative to path, such as "**/*.ts".`);
  }
  return pattern.replace(/^(\.\/)+/, '');
}

async function openFolder(root: string, requested: string) {
  try {
    return await openInWorkspace(root, requested, 'folder');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The same refusal, with the advice that fits glob.
    throw new Error(message.replace(/; use readFile to read it\.$/, '; give glob a folder as path.'));
  }
}
