import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { digestToken, parseAccessConfiguration, readAccessFile } from '../../src/identity';

const token = 'a-long-enough-bearer-token';

describe('parseAccessConfiguration', () => {
  it('keeps a plain token only as its digest, so a memory dump does not give it away', () => {
    const access = parseAccessConfiguration({ tokens: [{ person: 'ana', token, scopes: ['turns:read'] }] });
    expect(access.tokens).toEqual([{ digest: digestToken(token), identity: 'ana', scopes: ['turns:read'] }]);
    expect(JSON.stringify(access)).not.toContain(token);
  });

  it('treats a token given as sha256 and the same token given plainly as one token, and refuses the repeat', () => {
    const sha256 = digestToken(token).toString('hex');
    expect(() =>
      parseAccessConfiguration({
        tokens: [
          { person: 'ana', sha256, scopes: ['turns:read'] },
          { person: 'bob', token, scopes: ['audit:read'] },
        ],
      }),
    ).toThrow('tokens[1] repeats an earlier token.');
  });

  it('needs exactly one of sha256 and token', () => {
    expect(() => parseAccessConfiguration({ tokens: [{ person: 'ana', scopes: ['turns:read'] }] })).toThrow(
      'tokens[0] needs exactly one of "sha256" and "token".',
    );
    expect(() =>
      parseAccessConfiguration({
        tokens: [{ person: 'ana', token, sha256: digestToken(token).toString('hex'), scopes: ['turns:read'] }],
      }),
    ).toThrow('tokens[0] needs exactly one of "sha256" and "token".');
  });

  it('refuses a token with whitespace, which a header would cut', () => {
    expect(() =>
      parseAccessConfiguration({
        tokens: [{ person: 'ana', token: 'a long enough bearer token', scopes: ['turns:read'] }],
      }),
    ).toThrow('tokens[0].token needs 16+ characters and no whitespace.');
  });

  it('refuses a file with no tokens: a gateway nobody can call is a mistake', () => {
    expect(() => parseAccessConfiguration({ people: [] })).toThrow(
      'The access file must list at least one token under "tokens".',
    );
    expect(() => parseAccessConfiguration({ tokens: [] })).toThrow(
      'The access file must list at least one token under "tokens".',
    );
  });

  it('counts a scope listed twice once', () => {
    const access = parseAccessConfiguration({
      tokens: [{ person: 'ana', token, scopes: ['turns:read', 'turns:read'] }],
    });
    expect(access.tokens[0]?.scopes).toEqual(['turns:read']);
  });
});

describe('readAccessFile', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'tollgate-access-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('names the file in an error, never what it holds', () => {
    const file = path.join(folder, 'access.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ person: 'ana', token: 'leaked-secret', scopes: ['root'] }] }));
    const attempt = () => readAccessFile(file);
    expect(attempt).toThrow(`(in ${file})`);
    expect(attempt).not.toThrow(/leaked-secret/);
  });

  it('says why a file cannot be read without quoting its broken JSON', () => {
    const broken = path.join(folder, 'broken.json');
    writeFileSync(broken, `{"tokens": [{"token": "${token}"`);
    expect(() => readAccessFile(broken)).toThrow(`Cannot read the access file ${broken}: not valid JSON.`);
    expect(() => readAccessFile(path.join(folder, 'absent.json'))).toThrow(/: ENOENT\.$/);
  });
});
