-- Receipts that read like history (issue 13 item 7): what each sealed turn was, set when it seals
-- (services/audit/src/domain/receipt-history.ts), so GET /v1/receipts filters by kind and searches
-- without reading events. Turns sealed before this migration are filled below by the same rules,
-- without summaries (no event carried one before).

ALTER TABLE turns ADD COLUMN kind TEXT;          -- 'chat' | 'tool_run' | 'admin' | 'other'
ALTER TABLE turns ADD COLUMN summary TEXT;       -- a chat's first words, a tool run's tools, or NULL
ALTER TABLE turns ADD COLUMN method TEXT;        -- the gateway's turn_started method
ALTER TABLE turns ADD COLUMN route TEXT;         -- the gateway's turn_started path (normalised, no query)
ALTER TABLE turns ADD COLUMN outcome TEXT;       -- 'completed' | 'failed' | 'blocked'
ALTER TABLE turns ADD COLUMN http_status INTEGER;-- status of the gateway's terminal event
ALTER TABLE turns ADD COLUMN started_at TEXT;    -- earliest event occurred_at

CREATE INDEX turns_sealed_kind ON turns (tenant_id, kind, sealed_seq) WHERE sealed_seq IS NOT NULL;
CREATE INDEX turns_sealed_owner ON turns (tenant_id, principal_id, sealed_seq) WHERE sealed_seq IS NOT NULL;

UPDATE turns SET
  method = (SELECT substr(json_extract(e.payload_json, '$.method'), 1, 16) FROM turn_events e
    WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id AND e.payload_type = 'turn_started'
    ORDER BY e.occurred_at, e.emitter_service, e.sequence_in_service, e.event_id LIMIT 1),
  route = (SELECT substr(json_extract(e.payload_json, '$.path'), 1, 2048) FROM turn_events e
    WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id AND e.payload_type = 'turn_started'
    ORDER BY e.occurred_at, e.emitter_service, e.sequence_in_service, e.event_id LIMIT 1),
  http_status = (SELECT json_extract(e.payload_json, '$.status') FROM turn_events e
    WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id AND e.payload_type IN ('turn_sealed', 'turn_failed')
      AND json_type(e.payload_json, '$.status') = 'integer' AND json_extract(e.payload_json, '$.status') BETWEEN 100 AND 599
    ORDER BY e.occurred_at, e.emitter_service, e.sequence_in_service, e.event_id LIMIT 1),
  started_at = (SELECT MIN(e.occurred_at) FROM turn_events e WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id),
  outcome = CASE
    WHEN EXISTS (SELECT 1 FROM turn_events e WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id
      AND e.payload_type = 'guardrail_verdict' AND json_extract(e.payload_json, '$.decision') = 'block'
      AND coalesce(json_extract(e.payload_json, '$.source'), 'user') IN ('user', 'model')) THEN 'blocked'
    WHEN (SELECT json_extract(v.payload, '$.status') FROM envelopes v WHERE v.tenant_id = turns.tenant_id AND v.turn_id = turns.turn_id) = 'failed' THEN 'failed'
    ELSE 'completed' END
WHERE sealed_seq IS NOT NULL;

UPDATE turns SET kind = CASE
  WHEN route IS NOT NULL AND (route = '/v1/admin' OR route GLOB '/v1/admin/*') THEN 'admin'
  WHEN route IS NOT NULL AND (route = '/v1/chat' OR route GLOB '/v1/chat/*') THEN 'chat'
  WHEN route IS NOT NULL AND method = 'POST' AND route GLOB '/v1/sandbox/*' THEN 'tool_run'
  WHEN route IS NULL AND EXISTS (SELECT 1 FROM turn_events e WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id
    AND ((e.payload_type = 'prompt_generated' AND e.emitter_service = 'agent-runtime') OR e.payload_type = 'model_invoked')
    AND json_type(e.payload_json, '$.replay_of') IS NULL) THEN 'chat'
  WHEN EXISTS (SELECT 1 FROM turn_events e WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id AND e.payload_type = 'tool_called')
    AND NOT EXISTS (SELECT 1 FROM turn_events e WHERE e.tenant_id = turns.tenant_id AND e.turn_id = turns.turn_id
      AND ((e.payload_type = 'prompt_generated' AND e.emitter_service = 'agent-runtime') OR e.payload_type = 'model_invoked')
      AND json_type(e.payload_json, '$.replay_of') IS NULL) THEN 'tool_run'
  ELSE 'other' END
WHERE sealed_seq IS NOT NULL;
