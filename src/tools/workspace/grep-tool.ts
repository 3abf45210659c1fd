import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { joinLinesWithin } from './cap-text';
import { globToRegExp } from './glob-pattern';
import { describeFileError } from './describe-file-error';
import { openInWorkspace } from './open-in-workspace';
import { looksBinary } from './read-text-file';
import { walkFiles } from './walk-files';
import type { WorkspaceSettings } from './workspace-settings';
import { workspacePath, workspaceRelativePath } from './workspace-path';

/** The most matching lines `grep` returns; past this the model should narrow its search. */
export const maxGrepMatches = 200;

/** Characters of a matching line shown; minified files have lines that would fill the output on their own. */
const maxLineCharacters = 500;

/** Files larger than this are skipped: they are data or build output, not code to read line by line. */
const maxGrepFileBytes = 5 * 1024 * 1024;

const grepInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression, such as "function \\w+Tool" (no slashes).'),
  path: z.string().default('.').describe('File or folder to search, relative to the workspace. Default: all of it.'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, such as "*.ts" (any depth) or "src/**/*.ts".'),
});

/** `grep`: the lines of workspace files that match a regular expression. */
export function createGrepTool(settings: WorkspaceSettings): Tool {
  return defineTool({
    name: 'grep',
    // Safe to repeat if a worker dies mid-call.
    idempotent: true,
    description:
      'Search text files in the workspace for a JavaScript regular expression (case-sensitive; use [Aa] or ' +
      'alternatives for other cases). Returns matching lines as "file:line: text", file relative to the workspace, ' +
      `at most ${maxGrepMatches}. A glob without "/" filters by file name at any depth; with "/" it is matched ` +
      'against the path relative to path. Skips binary files, node_modules and .git.',
    inputSchema: grepInput,
    needsApproval: false,
    execute: async (input) => {
      const regularExpression = compile(input.pattern);
      const target = workspacePath(settings.root, input.path);
      const shownTarget = workspaceRelativePath(settings.root, target);
      const fileFilter = input.glob === undefined ? undefined : globToRegExp(input.glob.replace(/^(\.\/)+/, ''));
      const filterByName = input.glob !== undefined && !input.glob.includes('/');

      const matches: string[] = [];
      let capped = false;
      for await (const file of filesToSearch(settings.root, target, shownTarget)) {
        if (file !== '' && fileFilter && !fileFilter.test(filterByName ? path.posix.basename(file) : file)) continue;
        const absolute = file === '' ? target : path.join(target, file);
        const lines = await readSearchableLines(settings.root, absolute, file === '');
        const shownFile = workspaceRelativePath(settings.root, absolute);
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index] as string;
          if (!regularExpression.test(line)) continue;
          if (matches.length === maxGrepMatches) {
            capped = true;
            break;
          }
          matches.push(`${shownFile}:${index + 1}: ${shorten(line)}`);
        }
        if (capped) break;
      }
      if (matches.length === 0)
        return `[No matches for /${input.pattern}/ under "${shownTarget}"; try a broader pattern or another path.]`;
      const listing = joinLinesWithin(matches, settings.maxOutputBytes);
      if (!capped && listing.count === matches.length) return listing.text;
      return (
        `${listing.text}\n[Capped: showing the first ${listing.count} matching lines; ` +
        'use a narrower pattern, path or glob to see the rest.]'
      );
    },
  });
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Invalid regular expression "${pattern}" (${reason}); give a JavaScript regular expression and ` +
        'escape special characters such as ( [ { . * + ? with a backslash to match them literally.',
    );
  }
}

/** The files under a folder relative to it, or `''` for the target itself when it is a file. */
async function* filesToSearch(root: string, target: string, shownTarget: string): AsyncGenerator<string> {
  let stats;
  try {
    stats = await fs.stat(target);
  } catch (error) {
    throw new Error(describeFileError(error, shownTarget));
  }
  if (stats.isFile()) {
    yield '';
    return;
  }
  // The stat only chooses how to search; the folder is opened and walked confined, whatever it has become since.
  const { handle } = await openInWorkspace(root, target, 'folder');
  try {
    yield* walkFiles(handle, target);
  } finally {
    await handle.close();
  }
}

/**
 * The lines of a text file, or none for a binary, oversized or unreadable one: grep searches, it does not report,
 * except on the one file the model named.
 */
async function readSearchableLines(root: string, file: string, named: boolean): Promise<string[]> {
  let handle;
  try {
    handle = (await openInWorkspace(root, file, 'read')).handle;
  } catch (error) {
    if (named) throw error;
    return [];
  }
  try {
    const stats = await handle.stat();
    if (stats.size > maxGrepFileBytes) return [];
    const contents = await handle.readFile();
    if (looksBinary(contents)) return [];
    return contents.toString('utf8').split(/\r?\n/);
  } catch {
    return [];
  } finally {
    await handle.close();
  }
}

function shorten(line: string): string {
  return line.length <= maxLineCharacters ? line : `${line.slice(0, maxLineCharacters)}… [line cut]`;
}
