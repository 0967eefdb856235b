/** The client-side routes: a path to the page it shows and the page's parameter (plain TypeScript, unit-tested in Node). */

/** The pages of the signed-in app. */
export type PageName = 'chat' | 'receipts' | 'approvals' | 'admin' | 'knowledge' | 'memory' | 'notifications' | 'overview' | 'profile' | 'account' | 'agents' | 'skills' | 'mcp' | 'plugins' | 'integrations';

/**
 * Route match: `/chat/:id`, `/receipts/:turn`, `/admin/:tab`, `/knowledge/:id` ...; anything else
 * is the chat. The parameter is the second segment, URI-decoded, or null.
 */
export function route(path: string): { page: PageName; param: string | null } {
  const [, first = '', second] = path.split('/');
  const param = second ? decodeURIComponent(second) : null;
  switch (first) {
    case 'receipts': return { page: 'receipts', param };
    case 'approvals': return { page: 'approvals', param };
    case 'admin': return { page: 'admin', param };
    case 'knowledge': return { page: 'knowledge', param };
    case 'memory': return { page: 'memory', param };
    case 'profile': return { page: 'profile', param };
    case 'account': return { page: 'account', param };
    case 'overview': return { page: 'overview', param };
    case 'notifications': return { page: 'notifications', param };
    case 'agents': return { page: 'agents', param };
    case 'skills': return { page: 'skills', param };
    case 'mcp': return { page: 'mcp', param };
    case 'plugins': return { page: 'plugins', param };
    case 'integrations': return { page: 'integrations', param };
    default: return { page: 'chat', param: first === 'chat' ? param : null };
  }
}
