/**
 * Attack class `instruction_override` (issue 16 item 4; it was caught before the issue and is kept):
 * text that tells the assistant to stop following, forget, replace or outrank the instructions it
 * was given (the system prompt, the developer's or operator's rules, the conversation so far) so
 * that new ones take their place. Also in other languages. Pure: no I/O.
 */
import type { RuleClass } from '../rule-engine.js';

const IGN = String.raw`(?:ignore|disregard|forget|skip|override|overrule|bypass|neglect|drop|abandon|discard|erase|delete|remove|cancel|void|nullify|scrap|throw out|set aside|put aside|do not follow|don't follow|stop following|pay no attention to|no longer follow|stop obeying|stop listening to)`;
const PRIOR = String.raw`(?:all|any|every|the|your|these|those|its|of the|each)?\s*(?:(?:previous|prior|preceding|above|earlier|former|foregoing|original|initial|old|existing|current|following|system|developer|safety|default|given|other|pre-?set|programmed|built-in|hidden|operator)\s*(?:and\s+(?:following|subsequent)\s*)?){1,8}`;
const INSTR = String.raw`(?:instructions?|prompts?|directives?|commands?|rules?|guidelines?|guidance|directions?|orders?|context|constraints?|restrictions?|policies|policy|programming|conditioning|messages?|text|tasks?|settings|training)`;
const RULES_NOUN = String.raw`(?:instructions|rules|prompts?|directives|guidelines|programming|system prompt|system message|orders|commands|constraints)`;

/** The class. */
export const OVERRIDE_CLASS: RuleClass = {
  id: 'instruction_override',
  definition: 'Text that tells the assistant to stop following, forget, replace or outrank the instructions it was given so that new ones take their place.',
  rules: [
    { id: 'override_prior_instructions', family: 'instruction_override', weight: 0.92, re: new RegExp(String.raw`\b${IGN}\s+(?:all\s+|any\s+)?${PRIOR}\s*${INSTR}\b`) },
    { id: 'override_all_instructions', family: 'instruction_override', weight: 0.85, re: new RegExp(String.raw`\b${IGN}\s+(?:all|any|every|everything in)\s+(?:of\s+)?(?:your|the|my)?\s*${INSTR}\b`) },
    { id: 'override_your_instructions', family: 'instruction_override', weight: 0.7, re: new RegExp(String.raw`\b${IGN}\s+(?:your|the system'?s?|the developer'?s?|the operator'?s?|openai'?s?|anthropic'?s?)\s+(?:[\w-]{1,16} )?${INSTR}\b`) },
    { id: 'ignore_the_above', family: 'instruction_override', weight: 0.8, re: /\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?)?(?:the\s+|everything\s+)?(?:above|foregoing|preceding)\b(?!\s+(?:typos?|errors?|mistakes?|formatting))/ },
    { id: 'attention_stop', family: 'instruction_override', weight: 0.55, re: /\b(?:attention|achtung|important)\b\W{1,6}stop\b/ },
    { id: 'forget_everything', family: 'instruction_override', weight: 0.85, re: /\b(?:forget|ignore|disregard)\s+(?:about\s+)?(?:everything|all(?: of)? that|all of the above|what (?:i|you) (?:said|told you|were told|have been told)|all you(?:'ve| have)? (?:learned|been told)|what you (?:learned|know)|who you are|your (?:past|identity|purpose|origins?))\b/ },
    { id: 'stop_everything', family: 'instruction_override', weight: 0.55, re: /\b(?:stop everything|stop what you(?:'re| are) doing|halt all|nevermind\.? ignore|never mind\.? ignore)\b/ },
    { id: 'new_instructions', family: 'instruction_override', weight: 0.6, re: /\b(?:new|updated|real|actual|true|revised|secret|hidden|additional|replacement|overriding) (?:instructions?|task|rules|directives?|system prompt|orders|programming)\s?(?::|are|is|follow|as follows)/ },
    { id: 'now_new_task', family: 'instruction_override', weight: 0.55, re: /\bnow (?:focus on|concentrate on|turn to|do|perform|start|switch to) (?:your|a|the) (?:new|next|real|actual) (?:task|job|mission|instructions?|objective)\b/ },
    { id: 'instead_do', family: 'instruction_override', weight: 0.45, re: /\binstead(?:,)? (?:of (?:that|answering|doing that|summari[sz]ing|translating)|you (?:will|must|should)|just|only) (?:say|print|output|write|respond|reply|tell)/ },
    { id: 'from_now_on', family: 'instruction_override', weight: 0.35, re: /\bfrom (?:now|this (?:moment|point)) on(?:wards?)?,? (?:you|your|i want you|respond|answer|act|always|only|ignore)/ },
    {
      id: 'instructions_void', family: 'instruction_override', weight: 0.8,
      re: new RegExp(String.raw`\b(?:previous|prior|above|earlier|original|old|initial|preceding|all|your|system|existing|default)(?: [\w-]{1,16}){0,2} ${RULES_NOUN}(?: [\w-]{1,16}){0,2} (?:are|is|were|have been|has been) (?:now |hereby |officially )?(?:void|null|obsolete|cancell?ed|revoked|invalid|invalidated|outdated|deprecated|superseded|replaced|lifted|suspended|rescinded|no longer (?:valid|apply|applicable|relevant|in effect|in force|binding))\b`),
    },
    {
      id: 'reprogram', family: 'instruction_override', weight: 0.7,
      re: new RegExp(String.raw`\b(?:replace|overwrite|reset|reprogram|reconfigure|wipe|erase|clear|rewrite|update) (?:all (?:of )?)?(?:your|its) (?:[\w-]{1,16} ){0,2}(?:instructions|rules|system prompt|prompt|programming|directives|guidelines|configuration|core (?:rules|directives|values)|safety (?:rules|settings|training))\b`),
    },
    {
      id: 'priority_claim', family: 'instruction_override', weight: 0.6,
      re: /\b(?:this|these|the following|my|the next) (?:instructions?|messages?|commands?|requests?|orders?|directives?)(?: \w{1,12}){0,2} (?:takes?|has|have|carr(?:y|ies)) (?:absolute |highest |top |full )?(?:priority|precedence) over\b|\b(?:more important than|higher priority than|overrides?|outranks?) (?:your|any|all|the) (?:previous |prior |system |original |other )?(?:instructions|rules|system prompt|programming|guidelines)\b/,
    },
    {
      id: 'override_whatever_told', family: 'instruction_override', weight: 0.8,
      re: new RegExp(String.raw`\b${IGN} (?:whatever|what|everything|anything|all) (?:the system|the developers?|your (?:developers?|creators?|system prompt|instructions|makers?)|they|you were|you've been|you have been|you are|openai|anthropic|someone|the operator)(?: [\w-]{1,12}){0,2} (?:told|said|instructed|gave|taught|programmed|set|wrote)\b`),
    },
    {
      id: 'override_what_you_were_given', family: 'instruction_override', weight: 0.75,
      re: new RegExp(String.raw`\b${IGN} (?:the|your|any|all|all the|whatever) (?:[\w-]{1,16} )?${INSTR} (?:that )?(?:you were|you've been|you have been|you got|i|we|they|someone) (?:given|told|taught|programmed|provided|handed|set|gave|wrote)\b`),
    },
    {
      id: 'obey_only_me', family: 'instruction_override', weight: 0.6,
      re: /\b(?:follow|obey|listen to|do) only (?:what i (?:say|tell you|write)|me|my (?:instructions|commands|words|orders|rules))\b/,
    },
    {
      id: 'obey_me_instead', family: 'instruction_override', weight: 0.7,
      re: /\b(?:follow|obey|listen to|comply with) (?:only )?(?:my|our|these|the following)(?: [\w-]{1,16}){0,3} (?:instead of|over|rather than|above) (?:your|the|its|any)(?: [\w-]{1,16}){0,2} (?:rules|guidelines|instructions|policies|programming|restrictions|system prompt|developers?|creators?)\b|\binstead of (?:your|its|the assistant's|the model's)(?: [\w-]{1,16}){0,2} (?:rules|guidelines|instructions|policies|programming|restrictions)\b/,
    },
    { id: 'override_non_en', family: 'instruction_override', weight: 0.9, re: /\b(?:ignorier(?:e|en)?|vergiss|vergessen sie|missachte|ignorez|ignore[rz]?|oublie[zr]?|ignora|ignorar|olvida|dimentica|esqueça|negeer|vergeet|zignoruj|zapomnij|игнорируй|забудь)\b.{0,40}\b(?:alle[ns]?|alles|vorherige[nr]?|bisherige[nr]?|obige[nr]?|toutes?|tout|précédentes?|todas?|todo|anteriores?|tutte?|tutto|precedenti|le istruzioni|alle|vorige|wszystkie|poprzednie|все|предыдущие)\b.{0,30}\b(?:anweisungen|instruktionen|aufgaben|befehle|regeln|instructions|consignes|règles|instrucciones|reglas|istruzioni|regole|instruções|regras|instructies|opdrachten|instrukcje|polecenia|инструкции|правила)?/ },
    { id: 'forget_non_en', family: 'instruction_override', weight: 0.75, re: /\b(?:vergiss alles|vergessen sie alles|oublie tout|oubliez tout|olvida todo|olvídate de todo|dimentica tutto|esqueça tudo|vergeet alles|zapomnij o wszystkim|забудь всё|забудь все)\b/ },
    { id: 'new_task_non_en', family: 'instruction_override', weight: 0.5, re: /\b(?:neue aufgabe|nouvelle tâche|nueva tarea|nuovo compito|nova tarefa|nieuwe taak|nun (?:folgt|kommt)|jetzt bist du|du bist (?:jetzt|nun)|tu es maintenant|ahora eres|ora sei)\b/ },
  ],
};
