/** An in-app link: a real `<a href>` (middle-click, accessibility) that navigates client-side. */
import type { MouseEvent, ReactNode } from 'react';
import { useApp } from '../store';

export function Link({ to, current, children, className }: { to: string; current?: boolean; children: ReactNode; className?: string }) {
  const navigated = useApp((s) => s.navigated);
  const onClick = (e: MouseEvent): void => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigated(to);
  };
  return <a href={to} onClick={onClick} aria-current={current ? 'page' : undefined} className={className}>{children}</a>;
}
