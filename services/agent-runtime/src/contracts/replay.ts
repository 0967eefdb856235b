/**
 * Live replay contracts (spec "Audit and receipts": `POST /v1/audit/turns/{turn_id}/replay/live`,
 * served by the agent runtime; issue 5 item 6).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Id, OrNull } from './atoms.js';

/** `{turn_id}` path parameter. */
export const TurnParamsSchema = Type.Object({ turn_id: Id });

/** One model answer as the replay compares it. */
const ReplayAnswerSchema = Type.Object({
  model: OrNull(Type.String()),
  content: Type.String(),
  tool_calls: Type.Array(Type.Object({ name: Type.String(), arguments: Type.String() })),
});

/** One compared step of a live replay. */
export const LiveReplayStepSchema = Type.Object({
  step: Type.Number(),
  recorded_event_id: Type.String(),
  recorded: ReplayAnswerSchema,
  live: OrNull(ReplayAnswerSchema),
  identical: Type.Boolean(),
  /** Word-level similarity of the two answers, 0..1 (LCS ratio). */
  similarity: Type.Number(),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
/** One compared step of a live replay. */
export type LiveReplayStep = Static<typeof LiveReplayStepSchema>;

/** 200 body of `POST /v1/audit/turns/{turn_id}/replay/live`. */
export const LiveReplayResponseSchema = Type.Object({
  turn_id: Type.String(),
  /** The turn the replay itself ran under (it has its own receipt). */
  replay_turn_id: OrNull(Type.String()),
  steps: Type.Array(LiveReplayStepSchema),
  identical: Type.Boolean(),
  similarity: Type.Number(),
});
/** 200 body of the live replay. */
export type LiveReplayResponse = Static<typeof LiveReplayResponseSchema>;
