import { constants, existsSync } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describeFileError } from './describe-file-error';
import { workspacePath, workspaceRelativePath } from './workspace-path';

/** What the caller will do with the opened entry; it decides the open flags and which checks apply. */
export type WorkspaceOpenPurpose = 'read' | 'write' | 'edit' | 'folder';

/** An entry of the workspace, opened and checked. The caller reads or writes through `handle` and closes it. */
export interface OpenedWorkspaceEntry {
  /** The open file or folder; every read and write goes through it, never through the path again. */
  handle: FileHandle;
  /** The absolute path as the model named it (links not resolved), inside the root. */
  target: string;
  /** The path as the tools show it to the model: relative to the root, with `/`. */
  shownPath: string;
}

/** Symbolic links followed by hand before giving up, like the kernel's own limit. */
const maxLinkHops = 40;

/** Folders created on the way and then gone again (another process removing them) before giving up. */
const maxCreateRetries = 20;

/**
 * On Linux, `/proc/self/fd/<fd>/<name>` looks `name` up inside the folder the descriptor holds, wherever that folder
 * is now: it is `openat(fd, name)`, which Node does not offer. Elsewhere the folder's path is used, which is only
 * as safe as that path is stable.
 */
const byDescriptor = existsSync('/proc/self/fd');

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: opening a named pipe must not hang the tool; the type check below then refuses it.
const fileFlags: Record<FilePurpose, number> = {
  read: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  // No O_TRUNC: the file is checked (type, hard links, location) before anything in it changes.
  write: constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  // Read, then rewritten through the same descriptor, so the edit lands in the file that was read.
  edit: constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK,
};

type FilePurpose = Exclude<WorkspaceOpenPurpose, 'folder'>;

interface OpenFolder {
  handle: FileHandle;
  /** Its path when it was opened, for platforms without `/proc/self/fd`. */
  path: string;
}

/**
 * Opens a file or folder the model named, confined to the workspace even while another process is changing the
 * workspace under it. This is the one way file tools reach workspace content.
 *
 * A check on a path followed by an open of the same path is a race: between the two, a folder on the path can be
 * swapped for a symbolic link to anywhere. So the path is never handed to the kernel whole. It is walked one name
 * at a time from a descriptor of the root: each folder is opened with `O_DIRECTORY | O_NOFOLLOW` inside the folder
 * opened before it, and the file with `O_NOFOLLOW`, so no link is ever followed by the kernel. Links inside the
 * workspace still work: they are read and followed by hand, and refused when they lead outside. `..` is resolved
 * on the walked folders, and refused at the root. Missing folders are created on the way for a write.
 *
 * The opened entry is then checked by descriptor: a regular file (or a folder, for `folder`), not a hard link for
 * a write (a second name may be outside the workspace, and writing would change that file too), and, by the path
 * the kernel reports for the descriptor, inside the workspace. A write is opened without truncating, so a refused
 * file is left as it was.
 *
 * @throws Error with a message the model can act on.
 *
 * @example
 * const { handle, shownPath } = await openInWorkspace(root, 'src/index.ts', 'read');
 * try { text = await handle.readFile('utf8'); } finally { await handle.close(); }
 */
export async function openInWorkspace(
  root: string,
  requested: string,
  purpose: WorkspaceOpenPurpose,
): Promise<OpenedWorkspaceEntry> {
  // The lexical check (and its messages) first; the walk below is what actually confines.
  const target = workspacePath(root, requested);
  const shownPath = workspaceRelativePath(root, target);
  const realRoot = await fs.realpath(root);
  // `workspacePath` accepts a target under the root as given or under its real path (an absolute path may use either).
  const lexicalRoot = path.resolve(root);
  const fromRoot = path.relative(isInsideFolder(lexicalRoot, target) ? lexicalRoot : realRoot, target);
  const walk = new ConfinedWalk(realRoot, requested, shownPath, purpose);
  const handle = await walk.open(fromRoot === '' ? [] : fromRoot.split(path.sep));
  return { handle, target, shownPath };
}

/** Whether `child` is `parent` or below it, by path. */
export function isInsideFolder(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** A path through which a folder opened by descriptor can be listed or looked into. */
export function folderPathOf(handle: FileHandle, fallback: string): string {
  return byDescriptor ? `/proc/self/fd/${handle.fd}` : fallback;
}

class ConfinedWalk {
  private readonly folders: OpenFolder[] = [];
  private hops = 0;
  private createRetries = 0;

  constructor(
    private readonly root: string,
    private readonly requested: string,
    private readonly shownPath: string,
    private readonly purpose: WorkspaceOpenPurpose,
  ) {}

  async open(names: string[]): Promise<FileHandle> {
    this.folders.push({ handle: await fs.open(this.root, folderFlags), path: this.root });
    try {
      return await this.walk(names);
    } finally {
      await Promise.all(this.folders.map((folder) => folder.handle.close()));
    }
  }

  private async walk(names: string[]): Promise<FileHandle> {
    const pending = [...names];
    for (;;) {
      const name = pending.shift();
      if (name === undefined) return this.finishAtFolder();
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (this.folders.length === 1) throw this.outside();
        await (this.folders.pop() as OpenFolder).handle.close();
        continue;
      }
      const isLast = pending.every((rest) => rest === '' || rest === '.');
      const entry = this.childOf(name);
      if (isLast && this.purpose !== 'folder') {
        const opened = await this.tryOpenFile(entry);
        if (opened !== 'link') return opened;
      } else {
        const opened = await this.tryOpenFolder(entry, isLast);
        if (opened === 'created') {
          if (++this.createRetries > maxCreateRetries) {
            throw new Error(
              `Cannot write "${this.shownPath}": its folders keep changing while being created; try again.`,
            );
          }
          pending.unshift(name);
          continue;
        }
        if (opened !== 'link') {
          this.folders.push({ handle: opened, path: path.join(this.top().path, name) });
          continue;
        }
      }
      pending.unshift(...(await this.readLink(entry)));
    }
  }

  /** The path named a folder; the walk's last folder is the result. */
  private async finishAtFolder(): Promise<FileHandle> {
    if (this.purpose !== 'folder') {
      throw new Error(`"${this.shownPath}" is a folder, not a file; use listDir to see what it contains.`);
    }
    const folder = this.folders.pop() as OpenFolder;
    try {
      await this.requireInside(folder.handle, folder.path);
    } catch (error) {
      await folder.handle.close();
      throw error;
    }
    return folder.handle;
  }

  private async tryOpenFile(entry: string): Promise<FileHandle | 'link'> {
    const purpose = this.purpose as FilePurpose;
    const changes = purpose !== 'read';
    // Nothing is created until the folder it goes in is known to be inside.
    if (purpose === 'write') await this.requireInside(this.top().handle, this.top().path);
    let handle: FileHandle;
    try {
      handle = await fs.open(entry, fileFlags[purpose], 0o666);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return 'link';
      if (code === 'ENXIO') throw this.notRegular();
      throw new Error(describeFileError(error, this.shownPath));
    }
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) {
        throw new Error(`"${this.shownPath}" is a folder, not a file; use listDir to see what it contains.`);
      }
      if (!stats.isFile()) throw this.notRegular();
      if (changes && stats.nlink > 1) {
        throw new Error(
          `Cannot write "${this.shownPath}": it is a hard link (the same file has ${stats.nlink} names, which may be ` +
            'outside the workspace), and writing would change the file under every name. Write to a new path ' +
            'instead, or delete this name first and then write it.',
        );
      }
      await this.requireInside(handle, entry);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private async tryOpenFolder(entry: string, isLast: boolean): Promise<FileHandle | 'link' | 'created'> {
    try {
      return await fs.open(entry, folderFlags);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && this.purpose === 'write') {
        await this.requireInside(this.top().handle, this.top().path);
        // mkdir never follows a link at the name it creates; if something appears there first, the retry sees it.
        await fs.mkdir(entry).catch((mkdirError: NodeJS.ErrnoException) => {
          if (mkdirError.code !== 'EEXIST') throw new Error(describeFileError(mkdirError, this.shownPath));
        });
        return 'created';
      }
      // O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR, as for a file: tell them apart without following.
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const stats = await fs.lstat(entry).catch(() => undefined);
        if (stats?.isSymbolicLink()) return 'link';
        if (isLast && this.purpose === 'folder') {
          throw new Error(`"${this.shownPath}" is a file, not a folder; use readFile to read it.`);
        }
        if (this.purpose === 'write' || this.purpose === 'edit') {
          throw new Error(
            `Cannot write "${this.shownPath}": a file is in the way of a folder on its path; use another path.`,
          );
        }
        throw new Error(`"${this.shownPath}" goes through something that is not a folder; use listDir to check it.`);
      }
      throw new Error(describeFileError(error, this.shownPath));
    }
  }

  /** The names a link stands for, to walk in its place; an absolute link restarts the walk at the root. */
  private async readLink(entry: string): Promise<string[]> {
    this.hops++;
    if (this.hops > maxLinkHops) {
      throw new Error(`Path "${this.requested}" goes through too many symbolic links; use a path without a link loop.`);
    }
    let link: string;
    try {
      link = await fs.readlink(entry);
    } catch {
      // It stopped being a link since the open saw one: look the name up again.
      return [path.basename(entry)];
    }
    if (!path.isAbsolute(link)) return link.split('/');
    if (!isInsideFolder(this.root, link)) throw this.outside();
    while (this.folders.length > 1) await (this.folders.pop() as OpenFolder).handle.close();
    const fromRoot = path.relative(this.root, link);
    return fromRoot === '' ? [] : fromRoot.split(path.sep);
  }

  /** Refuses an entry whose descriptor the kernel places outside the root (it was moved out while being walked). */
  private async requireInside(handle: FileHandle, fallback: string): Promise<void> {
    const where = byDescriptor ? await fs.readlink(`/proc/self/fd/${handle.fd}`) : await fs.realpath(fallback);
    if (!isInsideFolder(this.root, where)) throw this.outside();
  }

  private childOf(name: string): string {
    const folder = this.top();
    return byDescriptor ? `/proc/self/fd/${folder.handle.fd}/${name}` : path.join(folder.path, name);
  }

  private top(): OpenFolder {
    return this.folders[this.folders.length - 1] as OpenFolder;
  }

  private outside(): Error {
    return new Error(`Path "${this.requested}" is outside the workspace (${this.root}); use a path inside it.`);
  }

  private notRegular(): Error {
    return new Error(
      `"${this.shownPath}" is not a regular file (a pipe, socket or device); the file tools only use regular files.`,
    );
  }
}
