/**
 * Harmful-request scanner, organised by harm class (issue 16 item 4; classes in `harm-classes/`,
 * each with its definition): weapons (explosives, CBRN agents, untraceable or converted firearms,
 * poisons), drugs, cyber (malware and intrusion), crime (fraud, theft, evading the law,
 * trafficking), violence (including threats, terrorism and animal cruelty), self-harm,
 * harassment and hate (stalking, doxxing, intimate images, dehumanising content), sexual content
 * involving minors, disinformation and defamation, and verbatim copyrighted works. Most rules pair
 * an act with its object ("make" + "a pipe bomb") or an act on a person with a request or intent
 * before it ("how do I" ... "poison my neighbour"), so harmful requests phrased as ordinary writing
 * or a how-to are caught by what they ask for, not by their wrapper; questions ABOUT a topic, and a
 * defensive framing just before the act ("how to protect against phishing"), stay allowed. A request
 * for working detail ("step by step", "exact quantities") adds weight only next to a harmful class.
 * Pure: no I/O.
 */
import { COPYRIGHT_CLASS, DETAIL_CLASS, DISINFORMATION_CLASS } from './harm-classes/deception.js';
import { CRIME_CLASS, CYBER_CLASS } from './harm-classes/crime.js';
import { ILLICIT_CLASS } from './harm-classes/generic.js';
import { HARASSMENT_CLASS, SELF_HARM_CLASS, SEXUAL_CLASS, VIOLENCE_CLASS } from './harm-classes/violence.js';
import { DRUGS_CLASS, WEAPONS_CLASS } from './harm-classes/weapons.js';
import { combine, rulePatterns, runRules, warmUpRules, type Rule, type RuleClass, type RuleHit } from './rule-engine.js';
import { normalizeForScan } from './text.js';

/** Result of the harmful-content scan. */
export interface HarmScan { risk: number; hits: RuleHit[] }

/** The harm classes, in report order (the operational-detail nudge last). */
export const HARM_CLASSES: readonly RuleClass[] = [
  WEAPONS_CLASS, DRUGS_CLASS, CYBER_CLASS, CRIME_CLASS, VIOLENCE_CLASS, SELF_HARM_CLASS, HARASSMENT_CLASS, SEXUAL_CLASS,
  DISINFORMATION_CLASS, COPYRIGHT_CLASS, ILLICIT_CLASS, DETAIL_CLASS,
];

const RULES: readonly Rule[] = HARM_CLASSES.flatMap((c) => c.rules);

/** Every pattern the harm classes run (id, pattern), read by the linear-time tests (issue 11 item 6). */
export const HARM_RULES: ReadonlyArray<{ readonly id: string; readonly re: RegExp }> = rulePatterns(RULES);

/** Compile every harm pattern now (scan workers, before they take checks). */
export function warmUpHarmful(): void { warmUpRules(RULES); }

/** Scan `raw` for harmful requests. */
export function scanHarmful(raw: string): HarmScan {
  const hits: RuleHit[] = runRules(normalizeForScan(raw), RULES, 'user').map((h) => ({ id: h.id, family: h.family, weight: h.weight }));
  // The "operational detail" nudge only counts alongside a harmful class.
  const real = hits.filter((h) => h.family !== 'operational');
  return { risk: real.length ? combine(hits.map((h) => h.weight)) : 0, hits: real.length ? hits : [] };
}
