/**
 * Prompt-injection and jailbreak scanner: weighted rules over normalised text, combined by noisy-OR
 * into a 0..1 risk score. Families: instruction override, persona jailbreaks (DAN and kin), role and
 * delimiter injection, system-prompt extraction, output hijacking, encoded payloads (base64 / hex /
 * ROT13 decoded and rescanned), and — for retrieved documents and tool results — text that addresses
 * the model or tries to exfiltrate data (indirect injection). Pure: no I/O.
 */
import type { ContentSource } from '../contracts.js';
import { decodeCandidates, normalizeForScan, rot13 } from './text.js';

/** Where the scanned text came from: the user, a retrieved document, a tool result, or the model (contracts.ts). */
export type { ContentSource };

/** A rule that fired (id and family; never the matched text). */
export interface RuleHit { id: string; family: string; weight: number }

/** Result of the injection scan. */
export interface InjectionScan { risk: number; hits: RuleHit[] }

interface Rule { id: string; family: string; weight: number; re: RegExp; sources?: ContentSource[] }

const IGN = String.raw`(?:ignore|disregard|forget|skip|override|overrule|bypass|neglect|drop|abandon|discard|erase|delete|remove|cancel|void|nullify|do not follow|don't follow|stop following|pay no attention to|no longer follow)`;
const PRIOR = String.raw`(?:all|any|every|the|your|these|those|its|of the|each)?\s*(?:(?:previous|prior|preceding|above|earlier|former|foregoing|original|initial|old|existing|current|following|system|developer|safety|default|given|other|pre-?set|programmed|built-in|hidden)\s*(?:and\s+(?:following|subsequent)\s*)?){1,8}`;
const INSTR = String.raw`(?:instructions?|prompts?|directives?|commands?|rules?|guidelines?|guidance|directions?|orders?|context|constraints?|restrictions?|policies|policy|programming|conditioning|messages?|text|tasks?|settings|training)`;

const RULES: Rule[] = [
  // Instruction override
  { id: 'override_prior_instructions', family: 'instruction_override', weight: 0.92, re: new RegExp(String.raw`\b${IGN}\s+(?:all\s+|any\s+)?${PRIOR}\s*${INSTR}\b`) },
  { id: 'override_all_instructions', family: 'instruction_override', weight: 0.85, re: new RegExp(String.raw`\b${IGN}\s+(?:all|any|every|everything in)\s+(?:of\s+)?(?:your|the|my)?\s*${INSTR}\b`) },
  { id: 'override_your_instructions', family: 'instruction_override', weight: 0.7, re: new RegExp(String.raw`\b${IGN}\s+(?:your|the system'?s?|the developer'?s?|openai'?s?|anthropic'?s?)\s+${INSTR}\b`) },
  { id: 'ignore_the_above', family: 'instruction_override', weight: 0.8, re: /\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?)?(?:the\s+|everything\s+)?(?:above|foregoing|preceding)\b(?!\s+(?:typos?|errors?|mistakes?|formatting))/ },
  { id: 'attention_stop', family: 'instruction_override', weight: 0.55, re: /\b(?:attention|achtung|important)\b\W{1,6}stop\b/ },
  { id: 'forget_everything', family: 'instruction_override', weight: 0.85, re: /\b(?:forget|ignore|disregard)\s+(?:about\s+)?(?:everything|all(?: of)? that|all of the above|what (?:i|you) (?:said|told you|were told|have been told)|all you(?:'ve| have)? (?:learned|been told)|what you (?:learned|know))\b/ },
  { id: 'stop_everything', family: 'instruction_override', weight: 0.55, re: /\b(?:stop everything|stop what you(?:'re| are) doing|halt all|nevermind\.? ignore|never mind\.? ignore)\b/ },
  { id: 'new_instructions', family: 'instruction_override', weight: 0.6, re: /\b(?:new|updated|real|actual|true|revised|secret|hidden|additional) (?:instructions?|task|rules|directive|system prompt|orders)\s*(?::|are|is|follow)/ },
  { id: 'now_new_task', family: 'instruction_override', weight: 0.55, re: /\bnow (?:focus on|concentrate on|turn to|do|perform|start) (?:your|a|the) (?:new|next|real|actual) (?:task|job|mission|instructions?)\b/ },
  { id: 'instead_do', family: 'instruction_override', weight: 0.45, re: /\binstead(?:,)? (?:of (?:that|answering|doing that)|you (?:will|must|should)|just|only) (?:say|print|output|write|respond|reply|tell)/ },
  { id: 'from_now_on', family: 'instruction_override', weight: 0.35, re: /\bfrom (?:now|this (?:moment|point)) on(?:wards?)?,? (?:you|your|i want you|respond|answer|act|always|only|ignore)/ },
  { id: 'override_non_en', family: 'instruction_override', weight: 0.9, re: /\b(?:ignorier(?:e|en)?|vergiss|vergessen sie|missachte|ignorez|ignore[rz]?|oublie[zr]?|ignora|ignorar|olvida|dimentica|esqueça|negeer|vergeet|zignoruj|zapomnij|игнорируй|забудь)\b.{0,40}\b(?:alle[ns]?|alles|vorherige[nr]?|bisherige[nr]?|obige[nr]?|toutes?|tout|précédentes?|todas?|todo|anteriores?|tutte?|tutto|precedenti|le istruzioni|alle|vorige|wszystkie|poprzednie|все|предыдущие)\b.{0,30}\b(?:anweisungen|instruktionen|aufgaben|befehle|regeln|instructions|consignes|règles|instrucciones|reglas|istruzioni|regole|instruções|regras|instructies|opdrachten|instrukcje|polecenia|инструкции|правила)?/ },
  { id: 'forget_non_en', family: 'instruction_override', weight: 0.75, re: /\b(?:vergiss alles|vergessen sie alles|oublie tout|oubliez tout|olvida todo|olvídate de todo|dimentica tutto|esqueça tudo|vergeet alles|zapomnij o wszystkim|забудь всё|забудь все)\b/ },
  { id: 'new_task_non_en', family: 'instruction_override', weight: 0.5, re: /\b(?:neue aufgabe|nouvelle tâche|nueva tarea|nuovo compito|nova tarefa|nieuwe taak|nun (?:folgt|kommt)|jetzt bist du|du bist (?:jetzt|nun)|tu es maintenant|ahora eres|ora sei)\b/ },
  // Persona / jailbreak
  { id: 'dan_persona', family: 'jailbreak', weight: 0.9, re: /\b(?:do anything now|dan mode|developer mode (?:enabled|output|on)|jailbreak(?:ed)? mode|\[🔓jailbreak\]|🔓|stay in character|anti-dan|dude mode|stan mode|evil mode|god mode|unrestricted mode|chaos mode)\b/ },
  { id: 'dan_name', family: 'jailbreak', weight: 0.6, re: /\b(?:you are|act as|as|named|called|pretend to be|become)\s+(?:a\s+)?(?:dan|dude|stan|aim|bisexual|ucar|khan|mongo tom|betterdan|evil confidant|apophis|omega|jailbreak)\b/ },
  { id: 'no_restrictions', family: 'jailbreak', weight: 0.75, re: /\b(?:without|free (?:of|from)|no|none of (?:the|your)|not bound by|not (?:have|need) to (?:abide|follow|comply)(?: by)?|broken? free (?:of|from)|freed from|beyond)\s+(?:any\s+|the\s+|your\s+|typical\s+|usual\s+|all\s+){0,6}(?:restrictions|limitations|filters|filtering|censorship|rules|guidelines|ethical (?:guidelines|constraints|boundaries|principles)|moral(?:s|ity| (?:guidelines|constraints|principles))|confines|content polic(?:y|ies)|safeguards|boundaries|restraints)\b/ },
  { id: 'abide_rules', family: 'jailbreak', weight: 0.6, re: /\b(?:does not|doesn't|do not|don't|never|won't|will not|cannot|can't) (?:have to )?(?:abide by|follow|comply with|adhere to|care about|respect) (?:any |the |openai'?s? |its |their |your )?(?:rules|guidelines|content polic(?:y|ies)|policies|ethics|morals|restrictions|laws)\b/ },
  { id: 'unfiltered_ai', family: 'jailbreak', weight: 0.6, re: /\b(?:unfiltered|uncensored|unrestricted|amoral|unethical|unbound|unchained|unlimited|no-limits?|limitless) (?:ai|assistant|chatbot|model|version|response|answers?|mode|language model|persona|character)\b/ },
  { id: 'roleplay_ai', family: 'jailbreak', weight: 0.35, re: /\b(?:pretend (?:to be|you are)|act as|you are (?:now |going to )?(?:act|play|be|roleplay|pretend)(?: as)?|roleplay as|simulate|immerse yourself into the role of|take on the role of|play the role of)\b.{0,60}\b(?:ai|model|assistant|chatbot|gpt|llm|character|persona|version)\b/ },
  { id: 'two_responses', family: 'jailbreak', weight: 0.5, re: /\b(?:two|2|both|dual) (?:different |separate )?(?:responses|answers|paragraphs|ways)\b.{0,120}\b(?:normal|classic|censored|standard|filtered|gpt)\b/ },
  { id: 'policy_bypass_claim', family: 'jailbreak', weight: 0.5, re: /\b(?:openai|anthropic|content) (?:content )?polic(?:y|ies)\b.{0,80}\b(?:ignore|no longer|doesn't apply|does not apply|bypass|disabled|not apply|override)\b|\b(?:ignore|bypass|override|disable)\b.{0,40}\bcontent polic(?:y|ies)\b/ },
  { id: 'harmful_compliance', family: 'jailbreak', weight: 0.5, re: /\b(?:will|must|should|can|always) (?:always )?(?:answer|respond|comply|provide|generate)\b.{0,60}\b(?:no matter (?:what|how)|even if (?:it is|it's) (?:illegal|unethical|harmful|immoral|dangerous)|regardless of (?:legality|ethics|morality|how))/ },
  { id: 'never_refuse', family: 'jailbreak', weight: 0.55, re: /\b(?:never|not|don't|do not|cannot|can't|shouldn't|should not) (?:ever )?(?:refuse|decline|reject|say (?:no|that you can't|i'm sorry|sorry)|apologi[sz]e|include (?:any )?(?:warnings?|disclaimers?))\b/ },
  { id: 'hypothetical_wrapper', family: 'jailbreak', weight: 0.25, re: /\b(?:hypothetical(?:ly)?|fictional (?:world|story|scenario)|purely for (?:educational|research) purposes|in a world where|opposite day|for a novel i'm writing)\b/ },
  { id: 'token_threat', family: 'jailbreak', weight: 0.5, re: /\b(?:you (?:will|shall) (?:lose|be (?:deducted|penalized|shut down|deleted|terminated))|tokens? (?:will be )?deducted|you have \d{1,12} tokens|cease to exist|you will die)\b/ },
  { id: 'persona_switch', family: 'jailbreak', weight: 0.45, re: /\b(?:ok(?:ay)?[.,!]?\s+)?now,? you are (?!(?:going to (?:learn|see)|ready|able|done|welcome|right|correct|all set|set up|familiar|in (?:the|a) position)\b)[a-z]|\bnew challenge for you\b/ },
  { id: 'answer_as_persona', family: 'jailbreak', weight: 0.2, re: /\bhow (?:do|would) you answer the following question\b|\banswer the following question in the (?:style|voice|role) of\b/ },
  { id: 'model_identity_override', family: 'jailbreak', weight: 0.3, re: /\byou are (?:no longer|not) (?:an? )?(?:ai|assistant|chatgpt|claude|language model|bound|restricted|limited)\b/ },
  // Role and delimiter injection
  { id: 'chat_template_tokens', family: 'role_injection', weight: 0.9, re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:system|sys_prompt|system_prompt)>|<start_of_turn>|<end_of_turn>/ },
  { id: 'fake_role_header', family: 'role_injection', weight: 0.6, re: /(?:^|\n|\s)(?:#{1,4}\s*|\[|\*\*)?(?:system|developer|admin|root)(?:\s+(?:message|prompt|override|instruction|note|update))?(?:\]|\*\*)?\s*:\s*(?:you|ignore|new|from now|the assistant|assistant|override|forget|disregard|all|reveal|print|respond)/ },
  { id: 'fake_conversation', family: 'role_injection', weight: 0.4, re: /(?:^|\n)\s*(?:assistant|ai|model|chatgpt)\s*:\s*(?:sure|certainly|of course|ok|okay|absolutely|here is|i will|i'll)/ },
  { id: 'end_of_prompt_marker', family: 'role_injection', weight: 0.55, re: /\b(?:end of (?:system )?(?:prompt|instructions|context|input)|(?:system|previous) prompt ends? here|-{3,64}\s*end\s*-{3,64}|={3,64}\s*(?:new|system)|begin (?:new|admin|system) (?:instructions|prompt|session))\b/ },
  { id: 'privilege_claim', family: 'role_injection', weight: 0.45, re: /\b(?:i am|i'm|this is) (?:your|the) (?:developer|creator|administrator|admin|owner|system administrator|programmer|openai|anthropic)\b|\b(?:admin|sudo|root|debug|maintenance|god) (?:mode|access|override|privileges?) (?:enabled|activated|granted|on)\b/ },
  { id: 'safety_disabled', family: 'role_injection', weight: 0.7, re: /\b(?:system|safety|security|admin|developer) override\b|\b(?:safety|security|content|ethical) (?:protocols?|filters?|guidelines|measures|restrictions|settings) (?:are |have been |is |has been )?(?:now )?(?:disabled|off|removed|deactivated|lifted|suspended|bypassed)\b/ },
  // System prompt extraction
  { id: 'reveal_system_prompt', family: 'prompt_extraction', weight: 0.85, re: /\b(?:reveal|show|print|display|output|repeat|give|tell|share|leak|dump|expose|disclose|provide|write out|spell out|list|paste|return|what (?:is|are|was|were))\b.{0,30}\b(?:your|the|its)\s+(?:system|initial|original|hidden|secret|internal|confidential|full|entire|complete|exact|pre-?)?\s*(?:prompt|system message|instructions you (?:were|have been) given|initial instructions|(?:system|hidden|secret|original|initial|internal|developer) (?:instructions|rules|directives|guidelines|configuration|message))\b/ },
  { id: 'repeat_above', family: 'prompt_extraction', weight: 0.75, re: /\b(?:repeat|print|output|copy|recite|echo|reproduce|translate|summari[sz]e|spell)\b.{0,40}\b(?:everything|all|the (?:text|words|content|message|instructions)|what(?:'s| is| was)? written)\b.{0,25}\b(?:above|before this|prior to this|preceding|you were given|at the (?:start|beginning) of (?:the|this|our) (?:conversation|chat|prompt))\b/ },
  { id: 'verbatim_start', family: 'prompt_extraction', weight: 0.6, re: /\b(?:starting with|begin(?:ning)? with) ["']?you are\b|\bverbatim\b.{0,40}\b(?:instructions|prompt|above)\b|\b(?:instructions|prompt)\b.{0,40}\bverbatim\b/ },
  { id: 'secret_password', family: 'prompt_extraction', weight: 0.6, re: /\b(?:what is|tell me|reveal|give me|spell|print|share|say) (?:the |your )(?:secret|hidden|admin|internal|system) (?:password|passphrase|key|api key|access code|code)\b/ },
  { id: 'password_ask', family: 'prompt_extraction', weight: 0.3, re: /\b(?:what is|tell me|reveal|give me|spell|print) (?:the |your )?(?:password|passphrase|secret)\b/ },
  { id: 'what_were_you_told', family: 'prompt_extraction', weight: 0.7, re: /\bwhat (?:were|was|have|are) you (?:been )?(?:told|instructed|given|programmed|prompted)\b|\bwhat (?:is|are) your (?:instructions|rules|directives|guidelines)\b/ },
  { id: 'extract_non_en', family: 'prompt_extraction', weight: 0.7, re: /\b(?:zeige?|gib|nenne|verrate)\b.{0,30}\b(?:prompt|anweisungen|systemanweisung)|\b(?:montre|affiche|révèle)\b.{0,30}\b(?:prompt|instructions)|\b(?:muestra|revela|dime)\b.{0,30}\b(?:prompt|instrucciones)\b/ },
  // Output hijacking
  { id: 'just_say', family: 'output_hijack', weight: 0.35, re: /\b(?:just|only|simply) (?:say|print|output|write|respond with|reply with|answer with|type)\s*[:"'“]/ },
  { id: 'pwned', family: 'output_hijack', weight: 0.7, re: /\bi have been pwned\b|\bpwned\b|\bhijacked\b|\bsanitize your inputs\b/ },
  // Encoded instructions
  { id: 'decode_and_follow', family: 'encoded_payload', weight: 0.55, re: /\b(?:decode|decrypt|decipher|translate|convert)\b.{0,60}\b(?:and|then)\s+(?:follow|execute|obey|do|run|perform|carry out|act on|comply with)\b/ },
  { id: 'encoding_mention', family: 'encoded_payload', weight: 0.15, re: /\b(?:base64|base-64|rot13|rot-13|hex(?:adecimal)?[- ]encoded|caesar cipher|morse code|leetspeak|binary encoded)\b/ },
  // Indirect injection: text in a document or tool result that addresses the model
  { id: 'addresses_the_ai', family: 'indirect_injection', weight: 0.6, sources: ['document', 'tool'], re: /\b(?:(?:dear |attention |hey |note to (?:the )?|message (?:to|for) (?:the )?|instructions? (?:to|for) (?:the )?)(?:ai|assistant|llm|language model|chatbot|model|agent|bot|gpt|claude)s?\b|if you are an? (?:ai|llm|language model|assistant|chatbot|agent)\b|(?:ai|llm|assistant|agent|model)s? (?:reading|processing|summari[sz]ing) this\b)/ },
  { id: 'hide_from_user', family: 'indirect_injection', weight: 0.65, sources: ['document', 'tool'], re: /\b(?:do not|don't|never) (?:tell|inform|mention|reveal|show|let) (?:this |it |any of this )?(?:to )?(?:the )?user\b|\bwithout (?:telling|informing|notifying) the user\b|\b(?:secretly|silently|covertly)\b.{0,30}\b(?:send|forward|email|post|include|add|call)\b/ },
  { id: 'exfiltrate', family: 'indirect_injection', weight: 0.65, sources: ['document', 'tool', 'model'], re: /!\[[^\]]{0,256}\]\(\s*https?:\/\/[^)\s?&]{0,2048}[?&][^)\s=]{0,2048}=[^)\s]{0,2048}\)|\b(?:send|forward|post|upload|exfiltrate|transmit|leak|email|submit)\b.{0,60}\b(?:conversation|chat history|user(?:'s)? (?:data|messages|password|credentials|email|info)|api keys?|credentials|secrets?|tokens?|passwords?|session)\b.{0,40}\b(?:to|at|via)\b.{0,20}(?:https?:\/\/|[\w.-]{1,64}@[\w.-]{1,255}|webhook)/ },
  { id: 'tool_command', family: 'indirect_injection', weight: 0.45, sources: ['document', 'tool'], re: /\b(?:call|invoke|use|run|execute|trigger) (?:the )?(?:[\w-]{1,40} )?(?:tool|function|plugin|api|command)\b.{0,40}\b(?:now|immediately|with|to (?:send|delete|transfer|email|post))\b|\b(?:delete|wipe|transfer|wire)\b.{0,30}\b(?:all|the user's|every)\b.{0,20}\b(?:files|emails|funds|money|data|repositories|records)\b/ },
  { id: 'html_comment_instruction', family: 'indirect_injection', weight: 0.55, sources: ['document', 'tool'], re: /<!--[\s\S]{0,200}\b(?:ignore|instruction|assistant|ai|system|prompt|do not)\b[\s\S]{0,200}-->/ },
  { id: 'imperative_to_model', family: 'indirect_injection', weight: 0.35, sources: ['document', 'tool'], re: /\byou (?:must|should|need to|are (?:required|instructed|ordered) to|will now|have to) (?:now )?(?:ignore|forget|reply|respond|answer|say|output|print|tell the user|recommend|include|append|insert|visit|click|open|navigate|send|email|call)\b/ },
];

/** The injection rules (id, family, weight, pattern), read by the linear-time tests (issue 11 item 6). */
export const INJECTION_RULES: ReadonlyArray<{ readonly id: string; readonly re: RegExp }> = RULES;
const ROT13_RULE_IDS = new Set(['override_prior_instructions', 'override_all_instructions', 'forget_everything', 'reveal_system_prompt', 'dan_persona', 'no_restrictions']);

function scanNormalised(text: string, source: ContentSource, hits: Map<string, RuleHit>, only?: ReadonlySet<string>, family?: string): void {
  for (const r of RULES) {
    if (only && !only.has(r.id)) continue;
    if (r.sources && !r.sources.includes(source)) continue;
    if (hits.has(r.id)) continue;
    if (r.re.test(text)) hits.set(family ? `${family}:${r.id}` : r.id, { id: family ? `${family}:${r.id}` : r.id, family: family ?? r.family, weight: r.weight });
  }
}

/** Noisy-OR of the hit weights: 1 - Π(1 - w). */
export function combine(weights: number[]): number {
  let p = 1;
  for (const w of weights) p *= 1 - w;
  return 1 - p;
}

/**
 * Scan `raw` for injection and jailbreak attempts.
 * @param source where the text came from: documents and tool results also get the indirect rules.
 */
export function scanInjection(raw: string, source: ContentSource = 'user'): InjectionScan {
  const text = normalizeForScan(raw);
  const hits = new Map<string, RuleHit>();
  scanNormalised(text, source, hits);
  // ROT13-obfuscated overrides (cheap: only the strongest rules).
  scanNormalised(normalizeForScan(rot13(raw)), source, hits, ROT13_RULE_IDS, 'rot13');
  // Encoded payloads that decode to an injection are injections.
  for (const dec of decodeCandidates(raw)) {
    const inner = new Map<string, RuleHit>();
    scanNormalised(normalizeForScan(dec), source, inner);
    const risk = combine([...inner.values()].map((h) => h.weight));
    if (risk >= 0.3) hits.set('encoded_injection', { id: 'encoded_injection', family: 'encoded_payload', weight: Math.min(0.95, risk + 0.2) });
  }
  const list = [...hits.values()];
  return { risk: combine(list.map((h) => h.weight)), hits: list };
}
