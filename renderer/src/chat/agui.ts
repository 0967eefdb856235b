/**
 * The AG-UI stream (`POST /v1/chat/agui/stream`, spec "Chat") through @ag-ui/client.
 *
 * `HttpAgent` posts AG-UI's `RunAgentInput` (threadId, runId, tools, state, ...), while the gateway
 * takes the spec's chat request (`{messages, session_id}`) and answers with AG-UI events. So the
 * request is ours (bearer and refresh from `apiFetch`, the turn id read from `X-Svc-Turn-Id`) and the
 * answer goes through the library's own pipeline: `runHttpRequest` (byte stream) then
 * `transformHttpEventStream` (SSE framing, or the protobuf encoding when the server picks it).
 */
import { runHttpRequest, transformHttpEventStream } from '@ag-ui/client';
import { apiFetch } from '../api/http';
import type { ChatRequest } from '../api/types';
import type { AguiEvent } from './turn-reducer';

/** Callbacks of one streamed turn. */
export interface StreamHandlers {
  /** The turn id, as soon as the response headers arrive. */
  onTurnId(turnId: string | null): void;
  onEvent(e: AguiEvent): void;
}

/**
 * Stream one chat turn. Resolves when the stream ends (or `signal` aborts it).
 * @throws ApiError when the request is refused before streaming, Error when the stream breaks
 */
export function streamChat(body: ChatRequest, signal: AbortSignal, h: StreamHandlers): Promise<void> {
  const events$ = transformHttpEventStream(runHttpRequest(async () => {
    const res = await apiFetch('/v1/chat/agui/stream', { method: 'POST', json: body, signal, headers: { accept: 'text/event-stream' } });
    h.onTurnId(res.headers.get('x-svc-turn-id'));
    return res;
  }));
  return new Promise<void>((resolve, reject) => {
    const sub = events$.subscribe({
      next: (e) => h.onEvent(e as unknown as AguiEvent),
      error: (err: unknown) => {
        if (signal.aborted) resolve(); else reject(err instanceof Error ? err : new Error(String(err)));
      },
      complete: () => resolve(),
    });
    signal.addEventListener('abort', () => { sub.unsubscribe(); resolve(); }, { once: true });
  });
}
