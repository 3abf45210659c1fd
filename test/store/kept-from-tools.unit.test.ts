import path from 'node:path';
import { FileContentStore, type ContentStore } from '../../src/store';
import { checkKeptFromTools, folderOfStore } from '../../src/store/kept-from-tools';

const what = "the content store (other people's outputs)";

describe("keeping the store and the gateway's files from the tools", () => {
  it('refuses a store inside the workspace, as TOLLGATE_WORKSPACE=. with the default store would put it', () => {
    expect(() => checkKeptFromTools('/srv/repo', { TOLLGATE_STORE_DIR: '/srv/repo/.tollgate/store' }, what)).toThrow(
      "TOLLGATE_STORE_DIR (/srv/repo/.tollgate/store) is inside the tools' workspace (/srv/repo); keep the content " +
        "store (other people's outputs) where tools cannot reach: readFile, listDir, glob and grep read the " +
        'workspace without asking anyone, and approved writes change it. Move one of them: the workspace ' +
        "(TOLLGATE_WORKSPACE; in code, createWorkspaceTools' root and createGateway's workspace), or the place named here.",
    );
  });

  it('refuses a store that holds the workspace, and one reached through ..', () => {
    expect(() => checkKeptFromTools('/srv/state/workspace', { TOLLGATE_STORE_URL: '/srv/state' }, what)).toThrow(
      /^TOLLGATE_STORE_URL \(\/srv\/state\) holds the tools' workspace \(\/srv\/state\/workspace\)/,
    );
    expect(() =>
      checkKeptFromTools('/srv/w', { TOLLGATE_GATEWAY_AUDIT_FILE: '/srv/w/../w/audit.jsonl' }, 'the audit'),
    ).toThrow(/is inside the tools' workspace/);
  });

  it('accepts places beside the workspace, and settings left unset', () => {
    expect(() =>
      checkKeptFromTools(
        path.join('/srv', '.tollgate', 'workspace'),
        { TOLLGATE_STORE_DIR: '/srv/.tollgate/store', TOLLGATE_GATEWAY_AUDIT_FILE: undefined, other: '/srv/w2' },
        what,
      ),
    ).not.toThrow();
  });

  it("finds a folder store's folder, and none for a store kept elsewhere", () => {
    expect(folderOfStore(new FileContentStore('/srv/store'))).toBe('/srv/store');
    const elsewhere: ContentStore = { put: async () => 'sha256:0', get: async () => null };
    expect(folderOfStore(elsewhere)).toBeUndefined();
  });
});
