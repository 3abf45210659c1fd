import {
  grantCoverProblem,
  grantedCallsKept,
  type GrantClaim,
  type StandingGrant,
} from '../../protocol/standing-grant';

export type { GrantClaim };
import type { LedgerClaimInput, LedgerGrantInput, LedgerRevokeInput } from '../../protocol/grant-request';
import { grantSignatureHolds } from '../../protocol/grant-signature';

/** A claim as the book remembers it, so that a repeat (an activity retried) counts once. */
interface ClaimRecord {
  claimId: string;
  grantId: string;
  toolName: string;
  inputDigest: string;
  at: string;
}

/** What a ledger that continues as new carries. */
export interface GrantBookSnapshot {
  grants: StandingGrant[];
  claims: ClaimRecord[];
}

/** How long an ended grant stays listed, and a claim is remembered, before the book forgets it. */
export const grantBookRetentionMs = 86_400_000;
/** Claims remembered at most (the oldest are forgotten first). */
const maxClaimsKept = 10_000;

/**
 * The grants of one ledger and the claims made on them. Pure bookkeeping on the ledger workflow's clock: each method
 * runs inside one update handler, and the workflow runs them one at a time, so a use is counted once however many
 * workers and gateways claim at the same moment.
 */
export class GrantBook {
  private readonly grants = new Map<string, StandingGrant>();
  private readonly claims = new Map<string, ClaimRecord>();

  /** Takes up what an earlier run of the ledger held. */
  restore(snapshot: GrantBookSnapshot): void {
    for (const grant of snapshot.grants) this.grants.set(grant.grantId, grant);
    for (const claim of snapshot.claims) this.claims.set(claim.claimId, claim);
  }

  snapshot(): GrantBookSnapshot {
    return { grants: [...this.grants.values()], claims: [...this.claims.values()] };
  }

  /** Records a grant; a repeat of the same id returns the one recorded. */
  grant(input: LedgerGrantInput, now: Date): StandingGrant {
    const known = this.grants.get(input.grantId);
    if (known) return known;
    const { terms } = input;
    const grant: StandingGrant = {
      ...terms,
      grantId: input.grantId,
      grantedBy: input.grantedBy,
      grantedByNames: input.grantedByNames,
      grantedAt: now.toISOString(),
      ...(terms.forMs !== undefined && { expiresAt: new Date(now.getTime() + terms.forMs).toISOString() }),
      used: 0,
      calls: [],
      ...(input.signature !== undefined && { signed: { terms, signature: input.signature } }),
    };
    this.grants.set(grant.grantId, grant);
    return grant;
  }

  /**
   * Lets a call through on the first grant that covers it, counting one use; or covers nothing. A claim id names one
   * call's slot in its turn: a repeat covering the same call returns the first answer; a repeat for another call (a
   * model step retried, whose model answered differently) gives the first call's use back before claiming anew.
   */
  claim(input: LedgerClaimInput, now: Date): GrantClaim {
    const earlier = this.claims.get(input.claimId);
    if (earlier) {
      const grant = this.grants.get(earlier.grantId);
      const sameCall = earlier.toolName === input.call.toolName && earlier.inputDigest === input.call.inputDigest;
      const stillHolds =
        grant?.revokedAt === undefined &&
        (grant?.expiresAt === undefined || Date.parse(grant.expiresAt) > now.getTime());
      if (grant && sameCall && stillHolds) return coveredBy(grant, earlier.at);
      this.claims.delete(input.claimId);
      if (grant) {
        grant.used = Math.max(0, grant.used - 1);
        grant.calls = grant.calls.filter((call) => call.claimId !== input.claimId);
      }
    }
    const { call } = input;
    for (const grant of this.grants.values()) {
      const judged = input.trustedKeys === undefined ? grant : signedGrant(grant, input.trustedKeys);
      if (!judged || grantCoverProblem(judged, call, input.rights, input.limits, now) !== undefined) continue;
      grant.used += 1;
      grant.calls = [
        ...grant.calls,
        { workflowId: call.workflowId, toolName: call.toolName, claimId: input.claimId, at: now.toISOString() },
      ].slice(-grantedCallsKept);
      this.claims.set(input.claimId, {
        claimId: input.claimId,
        grantId: grant.grantId,
        toolName: call.toolName,
        inputDigest: call.inputDigest,
        at: now.toISOString(),
      });
      this.trimClaims();
      return coveredBy(grant, now.toISOString());
    }
    return { covered: false };
  }

  /** Revokes a grant: from now on it covers nothing. Revoking it again changes nothing. */
  revoke(input: LedgerRevokeInput, now: Date): StandingGrant | undefined {
    const grant = this.grants.get(input.grantId);
    if (!grant) return undefined;
    if (grant.revokedAt === undefined) {
      grant.revokedAt = now.toISOString();
      grant.revokedBy = input.revokedBy;
    }
    return grant;
  }

  /** Every grant the book holds, newest first: those still in force, and those ended within a day. */
  list(): StandingGrant[] {
    return [...this.grants.values()].reverse();
  }

  /** Whether a grant can still cover a call at `now`. */
  static inForce(grant: StandingGrant, now: Date): boolean {
    return (
      grant.revokedAt === undefined &&
      (grant.expiresAt === undefined || Date.parse(grant.expiresAt) > now.getTime()) &&
      (grant.uses === undefined || grant.used < grant.uses)
    );
  }

  /** When the next grant in force runs out by time, if any does. */
  nextExpiry(now: Date): number | undefined {
    const times = [...this.grants.values()]
      .filter((grant) => GrantBook.inForce(grant, now) && grant.expiresAt !== undefined)
      .map((grant) => Date.parse(grant.expiresAt as string));
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Forgets grants that ended, and claims made, more than a day before `now`. */
  forgetOld(now: Date): void {
    const before = now.getTime() - grantBookRetentionMs;
    for (const [grantId, grant] of this.grants) {
      if (GrantBook.inForce(grant, now)) continue;
      const ended = Math.max(
        ...[grant.revokedAt, grant.expiresAt, grant.calls.at(-1)?.at, grant.grantedAt].flatMap((at) =>
          at === undefined ? [] : [Date.parse(at)],
        ),
      );
      if (ended < before) this.grants.delete(grantId);
    }
    for (const [claimId, claim] of this.claims) if (Date.parse(claim.at) < before) this.claims.delete(claimId);
  }

  private trimClaims(): void {
    while (this.claims.size > maxClaimsKept) {
      const oldest = this.claims.keys().next().value as string;
      this.claims.delete(oldest);
    }
  }
}

/**
 * The grant as its gateway signed it, judged by the signed terms alone; undefined when it carries no signature by a
 * trusted key (a grant written by anyone with access to Temporal covers nothing where decisions must be signed).
 */
function signedGrant(grant: StandingGrant, keys: Record<string, string>): StandingGrant | undefined {
  const { signed } = grant;
  if (!signed) return undefined;
  const fields = {
    grantId: grant.grantId,
    terms: signed.terms,
    grantedBy: grant.grantedBy,
    grantedByNames: grant.grantedByNames,
  };
  if (!grantSignatureHolds({ ...fields, signature: signed.signature }, keys)) return undefined;
  const { tools: _tools, mcpServer: _server, constraints: _constraints, ...rest } = grant;
  // No longer than the signed duration from the moment of signing (give or take the clock skew decisions allow).
  const signedEnd =
    signed.terms.forMs !== undefined
      ? Date.parse(signed.signature.signedAt) + signed.terms.forMs + 5 * 60_000
      : undefined;
  const recordedEnd = grant.expiresAt !== undefined ? Date.parse(grant.expiresAt) : undefined;
  const end = signedEnd === undefined ? recordedEnd : Math.min(signedEnd, recordedEnd ?? signedEnd);
  return {
    ...rest,
    ...signed.terms,
    ...(end !== undefined && { expiresAt: new Date(end).toISOString() }),
    grantedAt: grant.grantedAt,
    used: grant.used,
    calls: grant.calls,
  };
}

function coveredBy(grant: StandingGrant, claimedAt: string): GrantClaim {
  return {
    covered: true,
    grantId: grant.grantId,
    grantedBy: grant.grantedBy,
    used: grant.used,
    ...(grant.uses !== undefined && { uses: grant.uses }),
    ...(grant.expiresAt !== undefined && { expiresAt: grant.expiresAt }),
    claimedAt,
  };
}
