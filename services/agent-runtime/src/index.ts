/**
 * Agent runtime service entry (spec "Services": agent runtime, port 8001; issue 5: chat, SSE,
 * sessions and folders, tool loop with approvals, turn events and capture, live replay).
 *
 * `start(cfg, hooks?)` opens `<dbDir>/agent-runtime.sqlite`, or schema `agent_runtime` on PostgreSQL
 * when `cfg.database` is set (issue 21 item 1; no SQLite file then), and listens on `cfg.host:cfg.port`
 * (0 = ephemeral); `close()` cancels parked approvals, drains HTTP, delivers queued turn events
 * and closes the store. @throws Error when the store cannot be opened or the port is taken.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { agentRuntimeService } from './app.js';

/** Start the agent runtime (`AgentRuntimeConfig`, optional `AgentRuntimeHooks`). */
export const start = serviceStart(agentRuntimeService);
