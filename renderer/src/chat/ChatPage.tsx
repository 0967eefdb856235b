/** Chat: sessions sidebar on the left, the conversation and the composer on the right. */
import { Sidebar } from './Sidebar';
import { Conversation } from './Conversation';
import { NEW_CONV } from '../store';

export function ChatPage({ sessionId }: { sessionId: string | null }) {
  return (
    <div className="chat">
      <Sidebar current={sessionId} />
      <Conversation key={sessionId ?? NEW_CONV} sessionId={sessionId} />
    </div>
  );
}
