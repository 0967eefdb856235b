/** The composer: a textbox named "Message". Enter sends, Shift+Enter breaks the line, Esc stops. */
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useApp, type ConvKey } from '../store';
import { sendMessage, stopStreaming } from './actions';
import { AgentPicker } from '../agents/AgentPicker';

export function Composer({ convKey, streaming }: { convKey: ConvKey; streaming: boolean }) {
  const draft = useApp((s) => s.drafts[convKey] ?? '');
  const draftChanged = useApp((s) => s.draftChanged);
  const ref = useRef<HTMLTextAreaElement>(null);

  useEffect(() => { ref.current?.focus(); }, [convKey]);
  useEffect(() => {
    // Grow with the text up to a third of the window.
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, window.innerHeight / 3)}px`;
  }, [draft]);

  const send = (): void => { if (!streaming && draft.trim()) void sendMessage(convKey, draft); };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) { e.preventDefault(); send(); }
    else if (e.key === 'Escape' && streaming) { e.preventDefault(); stopStreaming(convKey); }
  };

  return (
    <form className="composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
      <AgentPicker disabled={streaming} />
      <textarea ref={ref} aria-label="Message" placeholder="Message (Enter to send, Shift+Enter for a new line)" rows={1}
        value={draft} onChange={(e) => draftChanged(convKey, e.target.value)} onKeyDown={onKey} />
      {streaming
        ? <button type="button" className="stop" onClick={() => stopStreaming(convKey)} title="Stop (Esc)">Stop</button>
        : <button type="submit" className="primary" disabled={!draft.trim()}>Send</button>}
    </form>
  );
}
