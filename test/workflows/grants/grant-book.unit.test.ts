import { generateKeyPairSync } from 'node:crypto';
import { signGrant } from '../../../src/gateway/decisions/sign-grant';
import { GrantBook } from '../../../src/workflows/grants/grant-book';
import type { LedgerClaimInput } from '../../../src/protocol';

const t0 = new Date('2026-01-01T12:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

function claim(claimId: string, overrides: Partial<LedgerClaimInput['call']> = {}): LedgerClaimInput {
  return {
    claimId,
    call: {
      workflowId: 'chat-1/turn-1',
      conversationId: 'chat-1',
      requester: 'bo',
      toolName: 'bash',
      input: { command: 'ls' },
      inputDigest: 'd1',
      ...overrides,
    },
    rights: { quorum: 1 },
    limits: {},
  };
}

function bookWithGrant(terms: { uses?: number; forMs?: number } = { uses: 2 }): GrantBook {
  const book = new GrantBook();
  book.grant(
    {
      grantId: 'grant-0001aaaa',
      terms: { tools: ['bash'], scope: { type: 'everyone' }, ...terms },
      grantedBy: 'ana',
      grantedByNames: ['ana'],
    },
    t0,
  );
  return book;
}

describe('GrantBook', () => {
  it('counts each claim once, and covers nothing once the uses are gone', () => {
    const book = bookWithGrant({ uses: 2 });
    expect(book.claim(claim('c1'), t0)).toMatchObject({ covered: true, grantId: 'grant-0001aaaa', used: 1, uses: 2 });
    expect(book.claim(claim('c2'), t0)).toMatchObject({ covered: true, used: 2 });
    expect(book.claim(claim('c3'), t0)).toEqual({ covered: false });
    expect(book.list()[0]?.calls.map((call) => call.claimId)).toEqual(['c1', 'c2']);
  });

  it('answers a repeated claim (an activity retried) with its first answer, without another use', () => {
    const book = bookWithGrant({ uses: 1 });
    expect(book.claim(claim('c1'), t0)).toMatchObject({ covered: true, used: 1 });
    expect(book.claim(claim('c1'), t0)).toMatchObject({ covered: true, used: 1 });
    expect(book.list()[0]?.used).toBe(1);
  });

  it("gives a slot's use back when its retry is another call, and judges that call afresh", () => {
    const book = bookWithGrant({ uses: 1 });
    book.claim(claim('c1'), t0);
    expect(book.claim(claim('c1', { toolName: 'deploy', inputDigest: 'd2' }), t0)).toEqual({ covered: false });
    expect(book.list()[0]?.used).toBe(0);
    expect(book.claim(claim('c2'), t0)).toMatchObject({ covered: true, used: 1 });
  });

  it('stops covering at the exact end of its time, and from the moment it is revoked', () => {
    const book = bookWithGrant({ forMs: 60_000 });
    expect(book.claim(claim('c1'), later(59_999))).toMatchObject({ covered: true });
    expect(book.claim(claim('c2'), later(60_000))).toEqual({ covered: false });
    const other = bookWithGrant({ forMs: 60_000 });
    other.revoke({ grantId: 'grant-0001aaaa', revokedBy: 'cy' }, later(1));
    expect(other.claim(claim('c1'), later(2))).toEqual({ covered: false });
    expect(other.list()[0]).toMatchObject({ revokedBy: 'cy' });
  });

  it('records a grant once per id, and hands everything to the next run', () => {
    const book = bookWithGrant();
    book.grant(
      {
        grantId: 'grant-0001aaaa',
        terms: { tools: ['x'], scope: { type: 'everyone' }, uses: 9 },
        grantedBy: 'zed',
        grantedByNames: ['zed'],
      },
      later(5),
    );
    book.claim(claim('c1'), t0);
    const next = new GrantBook();
    next.restore(book.snapshot());
    expect(next.list()).toHaveLength(1);
    expect(next.list()[0]).toMatchObject({ grantedBy: 'ana', used: 1 });
    expect(next.claim(claim('c1'), t0)).toMatchObject({ covered: true, used: 1 });
  });

  it('forgets grants that ended more than a day ago', () => {
    const book = bookWithGrant({ forMs: 60_000 });
    book.forgetOld(later(3_600_000));
    expect(book.list()).toHaveLength(1);
    book.forgetOld(later(60_000 + 86_400_001));
    expect(book.list()).toHaveLength(0);
  });

  it('covers a call only with a grant a trusted gateway key signed, where decisions must be signed', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keys = { gateway: publicKey.export({ format: 'jwk' }).x as string };
    const terms = { tools: ['bash'], scope: { type: 'everyone' as const }, uses: 5 };
    const fields = { grantId: 'grant-0002bbbb', terms, grantedBy: 'ana', grantedByNames: ['ana'] };
    const book = new GrantBook();
    book.grant({ ...fields, grantId: 'grant-0001aaaa' }, t0);
    book.grant({ ...fields, signature: signGrant(fields, { keyId: 'gateway', privateKey }, t0) }, t0);
    const signedOnly = { ...claim('c1'), trustedKeys: keys };
    expect(book.claim(signedOnly, t0)).toMatchObject({ covered: true, grantId: 'grant-0002bbbb' });
    // A grant whose recorded terms differ from what was signed is judged by the signed terms alone.
    const forged = new GrantBook();
    forged.grant(
      {
        ...fields,
        terms: { ...terms, tools: ['deploy'] },
        signature: signGrant(fields, { keyId: 'gateway', privateKey }, t0),
      },
      t0,
    );
    expect(forged.claim({ ...signedOnly, call: { ...signedOnly.call, toolName: 'deploy' } }, t0)).toEqual({
      covered: false,
    });
    const stranger = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
    expect(book.claim({ ...claim('c2'), trustedKeys: { gateway: stranger } }, t0)).toEqual({
      covered: false,
    });
  });
});
