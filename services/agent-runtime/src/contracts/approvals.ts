/**
 * Approval and tool-policy contracts (spec "Agent runtime surfaces": `/v1/user/approvals`,
 * `GET /v1/admin/approvals`, `/v1/admin/policies/tools`, `GET /v1/tools`; issue 5 item 3).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { AgentId, InOrder, OrNull, StringEnum, Timestamp } from './atoms.js';
import { ToolPolicyRuleSchema, ToolPolicySchema } from './settings.js';

/** Approval statuses. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;

/** An approval request as listed and as carried by `approval_required`. */
export const ApprovalViewSchema = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  agent_id: Type.String(),
  turn_id: OrNull(Type.String()),
  user_id: Type.String(),
  tool: Type.String(),
  call_id: Type.String(),
  /** The model's arguments (any JSON). */
  arguments: Type.Unknown(),
  /** The MCP server of the tool, on `approval_required` (issue 17 item 3). */
  server: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), tool: Type.String() })),
  status: StringEnum(APPROVAL_STATUSES),
  reason: OrNull(Type.String()),
  created_at: Timestamp,
  expires_at: Timestamp,
  decided_at: OrNull(Timestamp),
  decided_by: OrNull(Type.String()),
});
/** An approval request. */
export type ApprovalView = Static<typeof ApprovalViewSchema>;

/** `{items}` of approvals, newest first. */
export const ApprovalListSchema = Type.Object({ items: Type.Array(ApprovalViewSchema) });

/** Query of the approval lists. */
export const ApprovalQuerySchema = Type.Object({
  status: Type.Optional(StringEnum(APPROVAL_STATUSES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});

/** Body of `POST /v1/user/approvals/{id}/approve|reject` (optional). */
export const DecisionSchema = Type.Unsafe<{ reason?: string } | null>({
  type: ['object', 'null'],
  properties: { reason: Type.String({ maxLength: 2000 }) },
});

/** `{tool}` path parameter: a tool name or `*`. */
export const ToolParamsSchema = Type.Object({ tool: Type.String({ pattern: '^([A-Za-z0-9_-]{1,64}|\\*)$' }) });

/** `?agent_id` query. */
export const AgentQuerySchema = Type.Object({ agent_id: Type.Optional(AgentId) });

/** `GET /v1/tools`: the tools visible to the caller with their effective policy. */
export const ToolListSchema = Type.Object({
  items: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), source: Type.String(), policy: ToolPolicySchema })),
});
/** `GET /v1/tools` answer. */
export type ToolList = Static<typeof ToolListSchema>;

/** A policy rule with where it came from (stored admin rules outrank config rules on a tie). */
export const SourcedRuleSchema = Type.Object({ ...ToolPolicyRuleSchema.properties, origin: StringEnum(['config', 'admin'] as const) });
/** A policy rule with its origin. */
export type SourcedRule = Static<typeof SourcedRuleSchema>;

/** A policy rule with its origin as answers carry it (declared order). */
export const SourcedRuleAnswerSchema = InOrder(SourcedRuleSchema);

/** `GET /v1/admin/policies/tools`: rules in force for the tenant and every tool's own default. */
export const PolicyListSchema = Type.Object({
  items: Type.Array(SourcedRuleAnswerSchema),
  tools: Type.Array(Type.Object({ name: Type.String(), source: Type.String(), default_policy: ToolPolicySchema })),
});

/** Body of `PUT /v1/admin/policies/tools/{tool}`. */
export const PolicyPutSchema = Type.Object({ policy: ToolPolicySchema, agent_id: Type.Optional(AgentId) });
/** Body of `PUT /v1/admin/policies/tools/{tool}`. */
export type PolicyPut = Static<typeof PolicyPutSchema>;
