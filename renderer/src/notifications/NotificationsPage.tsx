/** The notifications page (`/notifications`; issue 13 item 1): the whole inbox, 50 at a time. */
import { Inbox } from './Inbox';

export default function NotificationsPage() {
  return (
    <div className="page">
      <Inbox />
    </div>
  );
}
