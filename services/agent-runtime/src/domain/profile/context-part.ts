/**
 * The profile as a part of the model's context (issue 13 item 2: "The accepted profile reaches the
 * model's context within a token budget, and the context trace shows it"). Pure. The prompt builder
 * (chat/build-prompt.ts) puts the text in a system message after the system prompt and returns it as
 * the prompt's `profile` part, so the context trace (`/v1/context/*`) can show it with its tokens.
 */
import type { UserProfile } from '../../contracts.js';
import { textTokens } from '../history.js';

/** One part of the context put in front of the model: its text and estimated tokens (history.ts `textTokens`). */
export interface ContextPart {
  text: string;
  tokens: number;
}

/** First line of the profile part. */
export const PROFILE_PART_HEADER = "About the user (from the user's profile, which the user chose to share):";

/**
 * The profile's context part within `budget` estimated tokens: name, time zone and language first,
 * then preferences in order while they fit, then how many did not fit (the last shown ones give way to that note).
 * @returns null when the profile is empty, `budget` is 0, or not even the first field fits.
 */
export function profileContextPart(profile: UserProfile, budget: number): ContextPart | null {
  if (budget <= 0) return null;
  const lines = [PROFILE_PART_HEADER];
  const fits = (line: string): boolean => textTokens([...lines, line].join('\n')) <= budget;
  let added = 0;
  const scalars: Array<[string, string | null]> = [['Name', profile.display_name], ['Time zone', profile.timezone], ['Language', profile.language]];
  for (const [label, value] of scalars) {
    if (!value) continue;
    const line = `- ${label}: ${value}`;
    if (!fits(line)) return added ? part(lines) : null;
    lines.push(line);
    added++;
  }
  if (profile.preferences.length) {
    if (!fits('- Preferences:')) return added ? part(lines) : null;
    lines.push('- Preferences:');
    let shown = 0;
    for (const pref of profile.preferences) {
      const line = `  - ${pref}`;
      if (!fits(line)) break;
      lines.push(line);
      shown++;
    }
    const note = (left: number): string => `- (${left} more preference${left === 1 ? '' : 's'} not shown)`;
    // Room for the note: the last shown preferences give way to it.
    while (shown > 0 && shown < profile.preferences.length && !fits(note(profile.preferences.length - shown))) { lines.pop(); shown--; }
    if (shown === 0) lines.pop();
    else added++;
    const left = profile.preferences.length - shown;
    if (left > 0 && added > 0 && fits(note(left))) lines.push(note(left));
  }
  return added ? part(lines) : null;
}

function part(lines: string[]): ContextPart {
  const text = lines.join('\n');
  return { text, tokens: textTokens(text) };
}
