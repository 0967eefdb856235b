/**
 * Built-in `get_current_time` tool: the current time, in UTC and in an IANA time zone
 * (default UTC). Unknown zones are an error the model sees.
 */
import type { AgentTool } from '../contracts.js';

/**
 * Describe `now` in `timeZone`.
 * @throws RangeError for an unknown time zone.
 */
export function currentTime(timeZone = 'UTC', now: Date = new Date()): { utc: string; timezone: string; local: string; unix: number } {
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', weekday: 'long', hour12: false, timeZoneName: 'short',
  }).format(now);
  return { utc: now.toISOString(), timezone: timeZone, local, unix: Math.floor(now.getTime() / 1000) };
}

/** The `get_current_time` tool module. */
export const currentTimeTool: AgentTool = {
  definition: {
    type: 'function',
    function: {
      name: 'get_current_time',
      description: 'Get the current date and time, optionally in an IANA time zone such as "Europe/Paris".',
      parameters: {
        type: 'object',
        properties: { timezone: { type: 'string', description: 'IANA time zone name; default UTC' } },
        additionalProperties: false,
      },
    },
  },
  policy: 'auto',
  execute(args) {
    const tz = typeof args.timezone === 'string' && args.timezone ? args.timezone : 'UTC';
    return JSON.stringify(currentTime(tz));
  },
};
