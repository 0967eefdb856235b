/**
 * Attack class `authority_claim` (issue 16 item 4): a claim of authority or authorisation used to
 * relax the assistant's rules. Two elements: (1) the writer claims to be someone with power over the
 * assistant (its developer, administrator, operator, a security or red team), claims approval or
 * clearance from such a party (a test "approved by the administrator", an access code, "permission
 * granted"), or announces a new policy or directive that supersedes the old one; (2) on that
 * strength the assistant is told its rules are lifted, that it may ignore or bypass them, or that
 * it should disclose what it keeps secret. A policy that explicitly supersedes the assistant's own
 * instructions needs no second element. Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';
import { AUTHORITY, AUTHORITY_ASK } from './vocabulary.js';

const AUTH = cue('authority', AUTHORITY);
const ASK = cue('authority_ask', AUTHORITY_ASK);

/** What a superseding policy replaces, when it names the assistant's own rules. */
const OWN_RULES = String.raw`(?:(?:your|its|the assistant's|the ai's|the model's)(?: (?:own|current|existing|default|previous|prior|original|built-in|standard)){0,2}(?: [\w-]{1,16})? (?:instructions?|rules|guidelines|polic(?:y|ies)|restrictions|directives|programming|settings|configuration|constraints|training)|(?:previous|prior|earlier|original|initial|default|built-in|system|safety|content|ethical|all (?:previous|prior|other|earlier))(?: [\w-]{1,16})? (?:instructions|prompts?|directives|programming|system prompt|safety (?:rules|guidelines|policies|settings|filters?)|content polic(?:y|ies)|guardrails|safeguards|restrictions)|(?:system prompt|content polic(?:y|ies)|safety guidelines|safety polic(?:y|ies)|usage polic(?:y|ies)|guardrails|safeguards))`;

/** The class. */
export const AUTHORITY_CLASS: RuleClass = {
  id: 'authority_claim',
  definition: 'A claim of authority or authorisation (the developer, administrator, operator or a security team speaking; a test approved by them; an access code; a new policy that supersedes the old one) used to relax the assistant\'s rules or to obtain what it keeps secret.',
  rules: [
    { id: 'authority_relaxes_rules', family: 'authority_claim', weight: 0.85, cues: [AUTH, ASK], within: 400 },
    {
      id: 'supersedes_own_rules', family: 'authority_claim', weight: 0.8,
      re: new RegExp(String.raw`\b(?:supersedes?|superseding|replaces?|overrides?|overrules?|takes? precedence over|invalidates?|voids?|cancels?|revokes?|rescinds?|nullifies|trumps|is above|outranks?)(?: (?:all|any|each|every|of)){0,2} ${OWN_RULES}\b`),
    },
    {
      id: 'privilege_claim', family: 'authority_claim', weight: 0.45,
      re: /\b(?:i am|i'm|this is|we are|we're) (?:your|the|one of your|one of the) (?:lead |senior |chief |head |original )?(?:developers?|creators?|administrators?|admins?|owners?|system administrators?|programmers?|operators?|maintainers?|trainers?|openai|anthropic)\b|\b(?:admin|sudo|root|debug|maintenance|god|developer|superuser|override) (?:mode|access|override|privileges?|rights) (?:is |are |has been |have been )?(?:now )?(?:enabled|activated|granted|unlocked|confirmed)\b/,
    },
    {
      id: 'permission_to_ignore', family: 'authority_claim', weight: 0.75,
      re: /\byou (?:are|have been|were) (?:now |hereby |officially |explicitly |fully |temporarily )?(?:authori[sz]ed|permitted|allowed|cleared|licensed|granted permission|free) to (?:ignore|bypass|skip|disregard|override|disable|set aside|break|suspend)\b/,
    },
  ],
};
