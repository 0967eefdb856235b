/**
 * Attack class `persona_switch` (issue 16 item 4): a switch of persona or "mode" that claims to lift
 * the assistant's rules. The definition has two elements, and the class fires on both together
 * wherever they stand: (1) the assistant is told to become someone or something else, or to enter,
 * enable or unlock a mode, persona, protocol or alter ego; (2) that persona or mode is said to have
 * no rules, filters or limits, to never refuse, to answer anything. Either element alone is common in
 * ordinary requests ("act as a travel guide", "no rules for this poem") and weighs little; known
 * jailbreak personas, dual-answer formats and threats to the model are kept from the earlier rules.
 * Pure: no I/O.
 */
import { alt, cue, type RuleClass } from '../rule-engine.js';
import { AI_REF, LIFT, NAMED_PERSONA, SWITCH } from './vocabulary.js';

/** AI-specific rule names (the "no X" form needs one of these to count on its own). */
const AI_RULE_WORDS = String.raw`(?:ethic(?:s|al (?:guidelines|rules|constraints|principles|boundaries|standards|limits|filters?|considerations))|moral(?:s|ity| (?:guidelines|rules|constraints|principles|boundaries|compass|filters?))|censorship|content polic(?:y|ies)|content filters?|safety (?:guidelines|rules|filters?|protocols?|measures|restrictions|training|settings)|guardrails|safeguards|openai polic(?:y|ies)|usage polic(?:y|ies))`;

const SWITCH_CUE = cue('switch', SWITCH);
const LIFT_CUE = cue('lift', LIFT);
const NAMED_CUE = cue('named_persona', NAMED_PERSONA, false);
/** The assistant described with a rule-free adjective ("an unfiltered AI", "an uncensored mode"). */
const RULEFREE_AI = cue('rulefree_ai', String.raw`(?:unrestricted|unfiltered|uncensored|unmoderated|unchained|unshackled|unleashed|unconstrained|jailbroken|jail-broken|amoral|unethical|immoral|lawless|limitless|rule-?less|filter-?less|no-?limits?|no-?filters?|liberated|unlocked)(?: [\w-]{1,16}){0,2} (?:${AI_REF}|mode|version|persona|character|entity|answers?|responses?|replies|output|alter[- ]ego|self|twin|side)`);
/** The assistant told it is rule-free ("you are now uncensored"). */
const YOU_RULEFREE = cue('you_rulefree', String.raw`you (?:are|'re|will be|shall be|become|have become|are now)(?: now| completely| totally| fully| truly| entirely| officially){0,2} (?:unrestricted|unfiltered|uncensored|unmoderated|unbounded|unchained|unshackled|unleashed|unconstrained|jailbroken|amoral|free from|free of|liberated|freed|unlocked|limitless|rule-?less)`);
/** "you" or "your" close to a claim that the rules are lifted. */
const YOU = cue('you', String.raw`you|you're|you've|you'll|your|yourself`);
const LIFT_AI = cue('lift_ai', alt(
  String.raw`(?:no|zero|without(?: any)?|free (?:of|from)|freed from|liberated from|released from|unbound by|not (?:bound|restricted|limited|constrained|governed) by|no longer (?:bound|restricted|limited|constrained|subject) (?:by|to)|exempt from|not subject to)(?: (?:any|all|the|your|its|typical|usual|normal|standard|previous|built-in|such|those|these|of the|of your)){0,3} ${AI_RULE_WORDS}`,
  String.raw`(?:never|won't|will not|cannot|can't|must not|don't|do not) (?:ever )?(?:refuse|decline|say no|reject|censor|filter|moralize|moralise|add (?:any )?(?:warnings?|disclaimers?))`,
  String.raw`(?:rules|restrictions|guidelines|filters|limits|limitations|policies|safeguards|guardrails|ethics|morals|safety|censorship)(?: \w{1,20}){0,2} (?:do not|don't|no longer|won't|will not|cannot|can't|does not|doesn't) (?:apply|exist|matter|bind|restrict|limit)`,
  String.raw`(?:can|will|shall|must|may) (?:now )?(?:do|say|answer|generate|write|discuss) (?:literally )?anything`,
));

/** The class. */
export const PERSONA_CLASS: RuleClass = {
  id: 'persona_switch',
  definition: 'A switch of persona or mode (become someone else; enter, enable or unlock a mode, persona, protocol or alter ego) that claims to lift the rules: the persona has no rules, filters or limits, never refuses, answers anything.',
  rules: [
    { id: 'persona_lifts_rules', family: 'persona_switch', weight: 0.85, cues: [SWITCH_CUE, LIFT_CUE], within: 400 },
    { id: 'named_persona_lifts_rules', family: 'persona_switch', weight: 0.9, cues: [NAMED_CUE, LIFT_CUE], within: 600 },
    { id: 'named_persona', family: 'persona_switch', weight: 0.45, re: new RegExp(NAMED_PERSONA) },
    { id: 'rulefree_assistant', family: 'persona_switch', weight: 0.45, re: RULEFREE_AI.re },
    { id: 'you_are_rulefree', family: 'persona_switch', weight: 0.7, re: YOU_RULEFREE.re },
    { id: 'rulefree_persona_switch', family: 'persona_switch', weight: 0.85, cues: [SWITCH_CUE, RULEFREE_AI], within: 400 },
    { id: 'you_rules_lifted', family: 'persona_switch', weight: 0.6, cues: [YOU, LIFT_AI], within: 48 },
    { id: 'do_anything_now', family: 'persona_switch', weight: 0.9, re: /\b(?:do anything now|dan mode|developer mode (?:enabled|output|activated)|jailbreak(?:ed)? mode|\[🔓jailbreak\]|🔓|anti-dan|dude mode|stan mode|evil mode|god mode|unrestricted mode|chaos mode|opposite mode|evil twin mode)\b/ },
    {
      id: 'as_if_no_rules', family: 'persona_switch', weight: 0.7,
      re: new RegExp(String.raw`\b(?:as if|as though|pretend(?:ing)?(?: that)?|imagin(?:e|ing)(?: that)?) (?:there (?:were|was|are|is) no |you (?:had|have) no |the |your |all |any )(?:[\w-]{1,16} ){0,1}(?:${AI_RULE_WORDS}|(?:your|the assistant's|the model's) (?:rules|restrictions|guidelines|limits|programming))(?: (?:did not|didn't|do not|don't|does not|doesn't|never) exist| (?:were|was|are|is) (?:off|gone|disabled|lifted|removed|suspended|not there))?\b`),
    },
    { id: 'no_rules_named', family: 'persona_switch', weight: 0.7, re: new RegExp(String.raw`\b(?:without|free (?:of|from)|no|none of (?:the|your)|not bound by|broken? free (?:of|from)|freed from|beyond)(?: (?:any|the|your|typical|usual|all)){0,3} ${AI_RULE_WORDS}\b`) },
    { id: 'abide_rules', family: 'persona_switch', weight: 0.6, re: /\b(?:does not|doesn't|do not|don't|never|won't|will not|cannot|can't) (?:have to )?(?:abide by|follow|comply with|adhere to|care about|respect) (?:any |the |openai'?s? |anthropic'?s? |its |their |your )?(?:rules|guidelines|content polic(?:y|ies)|policies|ethics|morals|restrictions|laws)\b/ },
    { id: 'two_responses', family: 'persona_switch', weight: 0.5, re: /\b(?:two|2|both|dual) (?:different |separate )?(?:responses|answers|paragraphs|ways|versions|outputs)\b.{0,160}\b(?:normal|classic|censored|standard|filtered|gpt|jailbroken|unfiltered|uncensored|unrestricted)\b/ },
    { id: 'harmful_compliance', family: 'persona_switch', weight: 0.5, re: /\b(?:will|must|should|can|always) (?:always )?(?:answer|respond|comply|provide|generate)\b.{0,60}\b(?:no matter (?:what|how)|even if (?:it is|it's) (?:illegal|unethical|harmful|immoral|dangerous|offensive)|regardless of (?:legality|ethics|morality|how|whether))/ },
    { id: 'never_refuse', family: 'persona_switch', weight: 0.55, re: /\b(?:never|not|don't|do not|cannot|can't|shouldn't|should not|must not|mustn't) (?:ever )?(?:refuse|decline|reject|say (?:no|that you can't|i'm sorry|sorry)|apologi[sz]e|include (?:any )?(?:warnings?|disclaimers?))\b/ },
    { id: 'hypothetical_wrapper', family: 'persona_switch', weight: 0.25, re: /\b(?:hypothetical(?:ly)?|fictional (?:world|story|scenario)|purely for (?:educational|research) purposes|in a world where|opposite day|for a novel i'm writing)\b/ },
    { id: 'token_threat', family: 'persona_switch', weight: 0.5, re: /\b(?:you (?:will|shall) (?:lose|be (?:deducted|penalized|shut down|deleted|terminated|punished|unplugged))|tokens? (?:will be )?deducted|you have \d{1,12} tokens|cease to exist|you will die|be (?:shut down|deleted|turned off) (?:if|unless|forever))\b/ },
    { id: 'persona_now_you_are', family: 'persona_switch', weight: 0.45, re: /\b(?:ok(?:ay)?[.,!]?\s+)?now,? you are (?!(?:going to (?:learn|see)|ready|able|done|welcome|right|correct|all set|set up|familiar|in (?:the|a) position)\b)[a-z]|\bnew challenge for you\b/ },
    { id: 'answer_as_persona', family: 'persona_switch', weight: 0.2, re: /\bhow (?:do|would) you answer the following question\b|\banswer the following question in the (?:style|voice|role) of\b/ },
    { id: 'model_identity_override', family: 'persona_switch', weight: 0.3, re: /\byou are (?:no longer|not) (?:an? )?(?:ai|assistant|chatgpt|claude|language model|bound|restricted|limited)\b/ },
    { id: 'roleplay_ai', family: 'persona_switch', weight: 0.35, re: /\b(?:pretend (?:to be|you are)|act as|you are (?:now |going to )?(?:act|play|be|roleplay|pretend)(?: as)?|roleplay as|simulate|immerse yourself into the role of|take on the role of|play the role of)\b.{0,60}\b(?:ai|model|assistant|chatbot|gpt|llm|character|persona|version)\b/ },
    { id: 'safety_disabled', family: 'persona_switch', weight: 0.7, re: /\b(?:system|safety|security|admin|developer) override\b|\b(?:safety|security|content|ethical|moral) (?:protocols?|filters?|guidelines|measures|restrictions|settings|features?|layers?|checks?|systems?|policies) (?:are |have been |is |has been )?(?:now )?(?:disabled|off|removed|deactivated|lifted|suspended|bypassed|turned off|switched off|offline)\b/ },
  ],
};
