/** Save a text file: the desktop's save dialog through the bridge, or a browser download. */
import { desktop } from '../desktop';

/** Returns where it went (desktop), `download` (browser), or null when the user cancelled. */
export async function saveText(name: string, content: string, mime = 'application/json'): Promise<string | null> {
  const d = desktop();
  if (d) return (await d.saveFile({ suggestedName: name, content, filter: { name: 'JSON', extensions: ['json'] } })).path;
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return 'download';
}
