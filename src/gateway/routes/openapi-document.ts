import { z } from 'zod';
import { grantRequestSchema } from '../../protocol';
import { approvalStatsQuerySchema } from './approval-stats-routes';
import { approvalSuggestionsQuerySchema } from './approval-suggestions-routes';
import { turnContentParamsSchema } from './turn-content';
import {
  approvalParamsSchema,
  auditQuerySchema,
  batchDecisionBodySchema,
  decisionBodySchema,
  grantParamsSchema,
  listApprovalsQuerySchema,
  startTurnBodySchema,
  turnParamsSchema,
} from '../http/gateway-schemas';

type JsonSchema = Record<string, unknown>;

// Request schemas come from the zod schemas the routes parse with, so the document cannot drift from
// what is enforced. Response shapes are protocol interfaces (not zod), so they are written out here.
function schemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

function parametersOf(schema: z.ZodObject, location: 'path' | 'query'): JsonSchema[] {
  const objectSchema = schemaOf(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(objectSchema.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (objectSchema.required ?? []).includes(name),
    schema: property,
    ...(typeof property.description === 'string' && { description: property.description }),
  }));
}

const reference = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: reference('Problem') } },
});
const statusIs = (status: string) => ({
  type: 'object',
  required: ['status'],
  properties: { status: { const: status } },
});
const body = (schema: z.ZodType) => ({ required: true, ...json(schemaOf(schema)) });

// Every authenticated route can answer these.
const commonProblems = {
  '400': problem('Invalid request: unknown or mistyped fields, `__proto__`, malformed JSON.'),
  '401': problem('Missing or invalid bearer token.'),
  '429': problem('Rate limit reached; see the `retry-after` header.'),
  '500': problem('Unexpected error; details are logged, not returned.'),
  '503': problem('Temporal could not be reached or did not answer in time.'),
};
const bodyProblems = {
  '413': problem('Body larger than the limit.'),
  '415': problem('Content-Type is not application/json.'),
};

const pendingToolApproval: JsonSchema = {
  type: 'object',
  required: ['approvalId', 'toolCallId', 'toolName', 'input', 'requestedAt', 'step'],
  properties: {
    approvalId: { type: 'string' },
    toolCallId: { type: 'string' },
    toolName: { type: 'string' },
    input: { description: 'The arguments the model sent.' },
    requestedAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    step: { type: 'integer', minimum: 1 },
  },
};

const timeToDecision: JsonSchema = {
  type: 'object',
  description: "Seconds from request to a person's decision; null without any.",
  properties: { p50: { type: ['number', 'null'] }, p95: { type: ['number', 'null'] } },
};
const counts = (names: string[]) => Object.fromEntries(names.map((name) => [name, { type: 'integer' }]));
const approvalStats: JsonSchema = {
  type: 'object',
  properties: {
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    turnsRead: { type: 'integer' },
    truncated: { type: 'boolean' },
    unansweredTurns: { type: 'integer' },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          tool: { type: 'string' },
          ...counts(['count', 'approved', 'denied', 'expired', 'superseded', 'pending']),
          timeToDecisionSeconds: timeToDecision,
        },
      },
    },
    approvers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          approver: { type: 'string' },
          ...counts(['count', 'approved', 'denied', 'refused']),
          timeToDecisionSeconds: timeToDecision,
        },
      },
    },
    refused: {
      type: 'object',
      properties: { total: { type: 'integer' }, byCode: { type: 'object', additionalProperties: { type: 'integer' } } },
    },
  },
};

// A standing grant's argument constraint; a suggestion's pattern has the same shape.
const argumentConstraint: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'argument', 'folder'],
      properties: {
        type: { const: 'path-under' },
        argument: { type: 'string' },
        folder: { type: 'string', description: 'The path is this folder or inside it; a `..` that leaves it is not.' },
      },
    },
    {
      type: 'object',
      required: ['type', 'argument', 'values'],
      properties: {
        type: { const: 'one-of' },
        argument: { type: 'string' },
        values: { type: 'array', items: { type: 'string' } },
      },
    },
    {
      type: 'object',
      required: ['type', 'argument', 'max'],
      properties: { type: { const: 'at-most' }, argument: { type: 'string' }, max: { type: 'number' } },
    },
  ],
};
const approvalSuggestions: JsonSchema = {
  type: 'object',
  properties: {
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    turnsRead: { type: 'integer' },
    truncated: { type: 'boolean' },
    unansweredTurns: { type: 'integer' },
    thresholds: { type: 'object', properties: counts(['minApprovals', 'minPeople']) },
    suggestions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'tool', 'summary', 'evidence', 'policyNote', 'grant'],
        properties: {
          id: { type: 'string', description: 'Stable for the same tool and pattern.' },
          tool: { type: 'string' },
          pattern: {
            description: 'Which calls of the tool it covers, by one argument; absent: every call.',
            ...argumentConstraint,
          },
          summary: { type: 'string' },
          evidence: {
            type: 'object',
            properties: {
              ...counts(['approved', 'notApprovedOutside']),
              people: {
                type: 'array',
                items: { type: 'object', properties: { approver: { type: 'string' }, approvals: { type: 'integer' } } },
              },
              medianSecondsToDecide: { type: ['number', 'null'] },
              totalSecondsToDecide: {
                type: 'number',
                description:
                  'Request-to-decision seconds summed over the covered calls: an upper bound of approver time.',
              },
              firstDecidedAt: { type: 'string', format: 'date-time' },
              lastDecidedAt: { type: 'string', format: 'date-time' },
            },
          },
          policy: {
            type: 'object',
            description: 'An operator-policy snippet (the TOLLGATE_POLICY_FILE format), where one can say it.',
          },
          policyNote: { type: 'string' },
          grant: {
            type: 'object',
            description:
              'The standing grant a person could create for it, as a `POST /v1/grants` body: for everyone, for 7 days, limited to the pattern (the person may narrow it).',
            properties: {
              tools: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1 },
              scope: { type: 'object', properties: { type: { const: 'everyone' } } },
              for: { type: 'string' },
              constraints: { type: 'array', items: argumentConstraint, maxItems: 1 },
              reason: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const auditEntry: JsonSchema = {
  allOf: [
    reference('PendingToolApproval'),
    {
      type: 'object',
      required: ['decision', 'decidedAt', 'via'],
      properties: {
        decision: { enum: ['approved', 'denied', 'expired'] },
        reason: { type: 'string' },
        approver: { type: 'string' },
        decidedAt: { type: 'string', format: 'date-time' },
        via: {
          enum: ['signal', 'update', 'timeout', 'auto-approve', 'policy', 'grant', 'plan', 'message', 'superseded'],
        },
        grant: {
          type: 'object',
          description: 'The standing grant that approved the call (`via: grant`).',
          properties: { grantId: { type: 'string' }, grantedBy: { type: 'string' } },
        },
        plan: {
          type: 'object',
          description: 'The approved plan that covered the call (`via: plan`): its approval and who approved it.',
          properties: { approvalId: { type: 'string' }, approvedBy: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  ],
};

/**
 * The OpenAPI 3.1 description of the gateway's REST API, served at `GET /openapi.json`.
 *
 * @example
 * const document = openApiDocument();
 * Object.keys(document.paths); // ['/healthz', '/openapi.json', '/v1/turns', ...]
 */
export function openApiDocument(): JsonSchema & { paths: Record<string, Record<string, JsonSchema>> } {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tollgate approval gateway',
      version: '1',
      description:
        'Start agent turns and decide their tool approvals over HTTP. The approver of a decision is the ' +
        'identity of the bearer token, never a field of the body. Errors are RFC 9457 problem+json.',
    },
    security: [{ bearer: [] }],
    paths: {
      '/healthz': {
        get: {
          summary: 'Liveness; needs no token.',
          security: [],
          responses: {
            '200': { description: 'Up.', ...json({ type: 'object', properties: { ok: { const: true } } }) },
          },
        },
      },
      '/openapi.json': {
        get: { summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1.' }, ...commonProblems } },
      },
      '/v1/turns': {
        post: {
          summary: 'Start a turn. Its requester is the token identity.',
          requestBody: body(startTurnBodySchema),
          responses: {
            '201': {
              description: 'Started; `Location` names the turn.',
              ...json({ type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'string' } } }),
            },
            ...commonProblems,
            ...bodyProblems,
            '413': problem(
              "Body larger than the limit, or the turn's last user message and what follows it larger than a turn's " +
                'input may carry (1 MiB; earlier messages go to the content store).',
            ),
          },
        },
      },
      '/v1/turns/{workflowId}': {
        get: {
          summary: "A turn's state: status, messages, text, steps, pending, audit, ignored decisions.",
          parameters: parametersOf(turnParamsSchema, 'path'),
          responses: {
            '200': { description: 'The state.', ...json(reference('TurnState')) },
            '404': problem('Unknown turn.'),
            ...commonProblems,
          },
        },
      },
      '/v1/turns/{workflowId}/content/{ref}': {
        get: {
          summary:
            "A large output a turn stored (a preview's `providerOptions.tollgate.contentRef`), read through the turn that owns it.",
          parameters: parametersOf(turnContentParamsSchema, 'path'),
          responses: {
            '200': {
              description: 'The stored output.',
              ...json({
                type: 'object',
                required: ['workflowId', 'ref', 'output'],
                properties: { workflowId: { type: 'string' }, ref: { type: 'string' }, output: {} },
              }),
            },
            '404': problem('No such content in a turn this token may read (the same answer whatever the reason).'),
            ...commonProblems,
          },
        },
      },
      '/v1/turns/{workflowId}/decisions': {
        post: {
          summary: 'Decide several approvals of one turn; all are recorded or none.',
          parameters: parametersOf(turnParamsSchema, 'path'),
          requestBody: body(batchDecisionBodySchema),
          responses: {
            '200': {
              description: 'The recorded decisions (for repeats, the first decision).',
              ...json({ type: 'object', properties: { decisions: { type: 'array', items: reference('AuditEntry') } } }),
            },
            '404': problem('Unknown turn or approval.'),
            '409': problem('Already decided differently, expired, or the turn is closed; `detail` says which.'),
            ...commonProblems,
            ...bodyProblems,
          },
        },
      },
      '/v1/approvals': {
        get: {
          summary: 'Pending approvals, oldest first.',
          parameters: parametersOf(listApprovalsQuerySchema, 'query'),
          responses: {
            '200': {
              description: 'Pending approvals with their turn.',
              ...json({
                type: 'object',
                properties: { approvals: { type: 'array', items: reference('PendingOfTurn') } },
              }),
            },
            ...commonProblems,
          },
        },
      },
      '/v1/approvals/{approvalId}': {
        get: {
          summary: 'One approval: pending, or its recorded decision.',
          parameters: parametersOf(approvalParamsSchema, 'path'),
          responses: {
            '200': {
              description: '`status` is `pending` or `decided`; decided ones carry the audit entry fields.',
              ...json({
                anyOf: [
                  { allOf: [reference('PendingOfTurn'), statusIs('pending')] },
                  { allOf: [reference('AuditEntry'), reference('PendingOfTurn'), statusIs('decided')] },
                ],
              }),
            },
            '404': problem('Unknown approval.'),
            ...commonProblems,
          },
        },
      },
      '/v1/approvals/{approvalId}/decision': {
        post: {
          summary: 'Approve or deny. The first decision wins; an identical repeat returns it again.',
          parameters: parametersOf(approvalParamsSchema, 'path'),
          requestBody: body(decisionBodySchema),
          responses: {
            '200': {
              description: 'The recorded decision; with `allow`, also the grant it gave (`allowed`).',
              ...json({
                allOf: [reference('AuditEntry'), { type: 'object', properties: { allowed: reference('Grant') } }],
              }),
            },
            '403': problem(
              'The approver may not decide this approval, or (with `allow`) may not grant: a quorum, their own request, the policy.',
            ),
            '404': problem('Unknown approval or turn.'),
            '409': problem('Already decided differently, expired, or the turn is closed; `detail` says which.'),
            ...commonProblems,
            ...bodyProblems,
          },
        },
      },
      '/v1/grants': {
        get: {
          summary:
            'Standing grants in force, and those that ended within a day, newest first. Needs `approvals:decide`.',
          responses: {
            '200': {
              description: 'The grants, with their use count, expiry, giver and the newest calls they let through.',
              ...json({ type: 'object', properties: { grants: { type: 'array', items: reference('Grant') } } }),
            },
            ...commonProblems,
          },
        },
        post: {
          summary:
            'Give a standing grant without deciding an approval: calls it covers run without asking. The worker checks the giver may decide those calls, alone, for someone else, within the policy.',
          requestBody: body(grantRequestSchema),
          responses: {
            '201': { description: 'The grant as recorded.', ...json(reference('Grant')) },
            '403': problem(
              'Refused by the rules; `detail` says why (not an approver, a quorum tool, the policy, a constraint that does not fit the tool).',
            ),
            ...commonProblems,
            ...bodyProblems,
          },
        },
      },
      '/v1/grants/{grantId}': {
        delete: {
          summary: 'Revoke a grant: it covers nothing from the moment this answers.',
          parameters: parametersOf(grantParamsSchema, 'path'),
          responses: {
            '200': { description: 'The grant, revoked.', ...json(reference('Grant')) },
            '404': problem('No such grant.'),
            ...commonProblems,
          },
        },
      },
      '/v1/audit': {
        get: {
          summary: 'Every decision attempt the gateway saw, refused ones included.',
          parameters: parametersOf(auditQuerySchema, 'query'),
          responses: {
            '200': {
              description: 'Attempts in arrival order.',
              ...json({
                type: 'object',
                properties: { attempts: { type: 'array', items: reference('DecisionAttempt') } },
              }),
            },
            ...commonProblems,
          },
        },
      },
      '/v1/approvals/stats': {
        get: {
          summary:
            'How approvals went per tool and per approver in a window: counts, outcomes, time to decision (p50/p95), refused attempts. Needs `audit:read`.',
          parameters: parametersOf(approvalStatsQuerySchema, 'query'),
          responses: {
            '200': {
              description:
                'The numbers; `truncated: true` when the window held more turns than were read (the newest `turnsRead`).',
              ...json(reference('ApprovalStats')),
            },
            ...commonProblems,
          },
        },
      },
      '/v1/approvals/suggestions': {
        get: {
          summary:
            'Rules that would have saved asking in a window: a tool, or an argument pattern, approved every time it asked by at least two people, with evidence, a grant and (where the policy file can say it) a policy snippet. Nothing is applied. Needs `audit:read`.',
          parameters: parametersOf(approvalSuggestionsQuerySchema, 'query'),
          responses: {
            '200': {
              description:
                'The suggestions, busiest first; `truncated: true` when the window held more turns than were read.',
              ...json(reference('ApprovalSuggestions')),
            },
            ...commonProblems,
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        PendingToolApproval: pendingToolApproval,
        PendingOfTurn: {
          allOf: [reference('PendingToolApproval'), { type: 'object', properties: { workflowId: { type: 'string' } } }],
        },
        AuditEntry: auditEntry,
        ApprovalStats: approvalStats,
        ApprovalSuggestions: approvalSuggestions,
        TurnState: {
          type: 'object',
          properties: {
            workflowId: { type: 'string' },
            status: {
              enum: ['running', 'awaiting-approval', 'awaiting-tool-output', 'completed', 'max-steps-reached'],
            },
            messages: { type: 'array', items: { type: 'object' } },
            text: { type: 'string' },
            steps: { type: 'integer' },
            pending: { type: 'array', items: reference('PendingToolApproval') },
            audit: { type: 'array', items: reference('AuditEntry') },
            ignoredDecisions: { type: 'array', items: { type: 'object' } },
          },
        },
        Grant: {
          type: 'object',
          required: ['grantId', 'scope', 'grantedBy', 'grantedAt', 'used'],
          properties: {
            grantId: { type: 'string' },
            tools: { type: 'array', items: { type: 'string' } },
            mcpServer: { type: 'string' },
            scope: { type: 'object' },
            constraints: { type: 'array', items: { type: 'object' } },
            grantedBy: { type: 'string' },
            grantedAt: { type: 'string', format: 'date-time' },
            expiresAt: { type: 'string', format: 'date-time' },
            uses: { type: 'integer' },
            used: { type: 'integer' },
            revokedAt: { type: 'string', format: 'date-time' },
            revokedBy: { type: 'string' },
            fromApprovalId: { type: 'string' },
            calls: { type: 'array', items: { type: 'object' } },
          },
        },
        DecisionAttempt: {
          type: 'object',
          required: ['at', 'approver', 'channel', 'approvalId', 'approved', 'outcome'],
          properties: {
            at: { type: 'string', format: 'date-time' },
            approver: { type: 'string' },
            channel: { enum: ['rest', 'slack', 'email', 'chat', 'message', 'inbox'] },
            approvalId: { type: 'string' },
            workflowId: { type: 'string' },
            approved: { type: 'boolean' },
            reason: { type: 'string' },
            outcome: { enum: ['recorded', 'repeat', 'refused', 'failed', 'forwarded'] },
            refusal: {
              type: 'object',
              properties: { code: { type: 'string' }, detail: { type: 'string' } },
            },
            from: { type: 'string', description: 'The address a refused request came from.' },
            coalesced: {
              type: 'object',
              description:
                'Set on a line that stands for several refusals alike in one minute (past the first ten, kept one by one).',
              properties: { count: { type: 'integer' }, since: { type: 'string', format: 'date-time' } },
            },
            grant: {
              type: 'object',
              description: 'Set on a standing grant given or revoked.',
              properties: {
                action: { enum: ['grant', 'revoke'] },
                grantId: { type: 'string' },
                summary: { type: 'string' },
              },
            },
          },
        },
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'instance'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
            errors: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
            },
            approvalId: { type: 'string' },
            workflowId: { type: 'string' },
          },
        },
      },
    },
  };
}
