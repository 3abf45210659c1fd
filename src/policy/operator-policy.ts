import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { durationSchema, notificationTargetSchema } from '../protocol';

/** Approval rules an operator sets, for every tool or for one. */
export const operatorRulesSchema = z.strictObject({
  /** Person ids who may decide. Anyone may when absent. */
  approvers: z.array(z.string().min(1).max(200)).min(1).optional(),
  /** Person ids (or `slack:…` / `email:…`) who may approve with changed input. Nobody may when absent. */
  editors: z.array(z.string().min(1).max(200)).min(1).optional(),
  /** Whether a requester may approve their own call. Default: false when approvers are set, true otherwise. */
  allowSelfApproval: z.boolean().optional(),
  /** Distinct approvers needed (default 1). */
  quorum: z.number().int().min(1).max(20).optional(),
  /** How long a request may wait before it is denied as expired. */
  approvalTimeout: durationSchema.optional(),
  /** What expiry does: deny the call (default) or fail the turn. */
  onExpire: z.enum(['deny', 'fail']).optional(),
  /** Who is told about each request. */
  notify: z.array(notificationTargetSchema).optional(),
  /** Remind after this long without a decision. */
  remindAfter: durationSchema.optional(),
  /** Where the reminder goes (an escalation); `notify` when absent. */
  escalateTo: z.array(notificationTargetSchema).optional(),
  /**
   * Warn the `notify` targets this long before a request expires; `false` for no warning. Default: a quarter of
   * the approval timeout, at most 1 h, for timeouts of 10 minutes or more (see docs/expiry-and-analytics.md).
   */
  warnBeforeExpiry: z.union([durationSchema, z.literal(false)]).optional(),
  /**
   * Standing grants of this tool (docs/asking-less.md): `false` forbids them; `maxFor` and `maxUses` cap them (a
   * grant must then have an end, or a use limit, within the cap). Allowed without a cap when absent.
   */
  grants: z
    .union([
      z.literal(false),
      z.strictObject({ maxFor: durationSchema.optional(), maxUses: z.number().int().min(1).optional() }),
    ])
    .optional(),
});
export type OperatorRules = z.infer<typeof operatorRulesSchema>;

/** An operator's rules for one MCP tool, or for every tool of an MCP server: they win over the tools' annotations. */
export const mcpToolRulesSchema = operatorRulesSchema.extend({
  /** Ask (true) or never ask (false), whatever the tool's annotations say. */
  needsApproval: z.boolean().optional(),
  /** Safe to run again after an interrupted attempt; default: the tool's `readOnlyHint`. */
  idempotent: z.boolean().optional(),
});
export type McpToolRules = z.infer<typeof mcpToolRulesSchema>;

/** An operator's rules for one MCP server's tools: for all of them, and per tool by the server's own tool name. */
export const mcpServerRulesSchema = mcpToolRulesSchema.extend({
  /** Rules per tool, by the name the server gives it (`write_file`, not `fs__write_file`). */
  tools: z.record(z.string(), mcpToolRulesSchema).optional(),
});
export type McpServerRules = z.infer<typeof mcpServerRulesSchema>;

/**
 * The operator's policy: which tools ask and who decides, whether turns may run autonomously, and
 * whose signatures make a decision count. It belongs to whoever runs the worker; a turn's caller
 * can only make it stricter.
 */
export const operatorPolicySchema = z.strictObject({
  /** Rules for every tool. */
  defaults: operatorRulesSchema.optional(),
  /** Rules per tool name, laid over the defaults and the tool's own rules; `needsApproval: true` makes a tool ask. */
  tools: z.record(z.string(), operatorRulesSchema.extend({ needsApproval: z.literal(true).optional() })).optional(),
  /**
   * Rules for MCP servers' tools, by server name (see docs/mcp-tools.md): laid over `defaults` and the tools'
   * annotations; `tools` (by the namespaced name, e.g. `fs__write_file`) still applies over them.
   */
  mcpServers: z.record(z.string(), mcpServerRulesSchema).optional(),
  /** Whether a turn may run with `autoApprove` (default: no). The gateway also requires the `turns:autonomous` scope. */
  allowAutoApprove: z.boolean().optional(),
  /** Decisions must carry a signature from one of these keys (see the gateway's signing key). */
  decisions: z
    .strictObject({
      /** Refuse unsigned decisions (default: true when keys are given). */
      requireSigned: z.boolean().optional(),
      /** Ed25519 public keys (raw 32 bytes, base64url) by key id. */
      trustedKeys: z.record(z.string().min(1).max(100), z.string().min(40).max(60)),
    })
    .optional(),
});
export type OperatorPolicy = z.infer<typeof operatorPolicySchema>;

/**
 * The policy the worker's environment names: a JSON file at `TOLLGATE_POLICY_FILE`, with
 * `TOLLGATE_DECISION_PUBLIC_KEYS` (`keyId=key,...`) and `TOLLGATE_ALLOW_AUTO_APPROVE=true` as
 * shortcuts. A file that does not parse stops the worker with the reason.
 */
export function operatorPolicyFromEnvironment(environment: NodeJS.ProcessEnv = process.env): OperatorPolicy {
  let policy: OperatorPolicy = {};
  const file = environment.TOLLGATE_POLICY_FILE;
  if (file) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`TOLLGATE_POLICY_FILE "${file}" could not be read as JSON: ${(error as Error).message}`);
    }
    const parsed = operatorPolicySchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(`TOLLGATE_POLICY_FILE "${file}" is not a valid policy:\n${z.prettifyError(parsed.error)}`);
    policy = parsed.data;
  }
  const keys = environment.TOLLGATE_DECISION_PUBLIC_KEYS;
  if (keys) {
    const trustedKeys: Record<string, string> = { ...policy.decisions?.trustedKeys };
    for (const entry of keys
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)) {
      const [keyId, key] = entry.split('=', 2);
      if (!keyId || !key) throw new Error(`TOLLGATE_DECISION_PUBLIC_KEYS: "${entry}" is not keyId=publicKey.`);
      trustedKeys[keyId] = key;
    }
    policy = { ...policy, decisions: { ...policy.decisions, trustedKeys } };
  }
  if (environment.TOLLGATE_ALLOW_AUTO_APPROVE === 'true') policy = { ...policy, allowAutoApprove: true };
  return policy;
}
