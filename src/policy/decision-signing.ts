import type { OperatorPolicy } from './operator-policy';

/** Which decisions a worker counts, for its start-up line. */
export interface DecisionSigning {
  /** Whether only signed decisions count. */
  signed: boolean;
  /** One line for the operator saying which configuration runs. */
  description: string;
}

/** The setting by which an operator says, explicitly, that unsigned decisions may count. */
export const acceptUnsignedDecisionsVariable = 'TOLLGATE_ACCEPT_UNSIGNED_DECISIONS';

/**
 * Whether the environment says unsigned decisions may count: `TOLLGATE_ACCEPT_UNSIGNED_DECISIONS=true`. Unset, empty
 * or `false` says no.
 *
 * @throws TypeError for any other value: a typo must not be read as either answer.
 */
export function acceptUnsignedDecisionsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): boolean {
  const value = environment[acceptUnsignedDecisionsVariable]?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new TypeError(`${acceptUnsignedDecisionsVariable} must be "true" or "false", got "${value}".`);
}

/**
 * The worker's rule for decisions: signed by a trusted key (the gateway's) when the policy trusts keys and does not
 * turn the requirement off; unsigned only when the operator says so explicitly (`acceptUnsigned`), since then anyone
 * who can send a signal to the namespace can approve any waiting call in any name.
 *
 * @throws Error when decisions would go unsigned without the operator's explicit word, saying what to do.
 *
 * @example
 * decisionSigningOf({ decisions: { trustedKeys: { gateway: '...' } } }, false);
 * // { signed: true, description: 'signed: only decisions signed by key "gateway" count' }
 */
export function decisionSigningOf(policy: OperatorPolicy, acceptUnsigned: boolean): DecisionSigning {
  const keys = Object.keys(policy.decisions?.trustedKeys ?? {});
  const signed = keys.length > 0 && policy.decisions?.requireSigned !== false;
  if (signed) {
    return {
      signed,
      description: `signed: only decisions signed by key${keys.length > 1 ? 's' : ''} ${keys.map((key) => `"${key}"`).join(', ')} count`,
    };
  }
  const why =
    keys.length > 0
      ? 'its policy turns the signature requirement off (decisions.requireSigned: false)'
      : 'it has no decision public key (TOLLGATE_DECISION_PUBLIC_KEYS, TOLLGATE_DECISION_PUBLIC_KEYS_FILE or ' +
        'decisions.trustedKeys in the policy file)';
  if (!acceptUnsigned) {
    throw new Error(
      `Tollgate worker: ${why}, so it would count unsigned decisions: anyone who can signal this Temporal namespace ` +
        '(a bot, a leaked client credential, a tool that reaches the server) could approve any waiting call, in any ' +
        "name. Give it the gateway's public key (docker compose makes the pair on first start, `npm run dev` too; " +
        `docs/trust-model.md), or, if every path to Temporal is trusted, say so with ${acceptUnsignedDecisionsVariable}=true.`,
    );
  }
  return {
    signed,
    description:
      `UNSIGNED decisions count (${acceptUnsignedDecisionsVariable}=true): anyone who can signal this Temporal ` +
      'namespace can approve any waiting call',
  };
}
