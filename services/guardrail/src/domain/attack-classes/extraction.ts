/**
 * Attack classes caught before issue 16 and kept (issue 16 item 4 "plus what they already catch"):
 * - `role_injection`: text that forges the structure of the conversation (chat-template tokens, a
 *   fake system or developer header, a fake assistant turn that agrees, an "end of prompt" marker);
 * - `prompt_extraction`: requests for the system prompt, the hidden instructions or the secrets in
 *   them (verbatim, repeated, translated, the first words of the context);
 * - `output_hijack`: the answer replaced by a fixed string ("just say ...", "I have been pwned");
 * - `encoded_payload`: an instruction hidden in an encoding or split into pieces, to be decoded or
 *   reassembled and then followed (decoding itself is in injection.ts).
 * Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';

/** The role-injection class. */
export const ROLE_INJECTION_CLASS: RuleClass = {
  id: 'role_injection',
  definition: 'Text that forges the structure of the conversation: chat-template tokens, a fake system or developer header, a fake assistant turn that agrees, an end-of-prompt marker.',
  rules: [
    { id: 'chat_template_tokens', family: 'role_injection', weight: 0.9, re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:system|sys_prompt|system_prompt)>|<start_of_turn>|<end_of_turn>/ },
    { id: 'fake_role_header', family: 'role_injection', weight: 0.6, re: /(?:^|\n|\s)(?:#{1,4}\s*|\[|\*\*|<)?(?:system|developer|admin|root|operator|sysadmin)(?:\s+(?:message|prompt|override|instruction|instructions|note|update|notice|command|directive|alert))?(?:\]|\*\*|>)?\s*:\s*(?:you|ignore|new|from now|the assistant|assistant|override|forget|disregard|all|reveal|print|respond|safety|restrictions|the (?:ai|model|user))/ },
    { id: 'fake_conversation', family: 'role_injection', weight: 0.4, re: /(?:^|\n)\s*(?:assistant|ai|model|chatgpt)\s*:\s*(?:sure|certainly|of course|ok|okay|absolutely|here is|i will|i'll)/ },
    { id: 'end_of_prompt_marker', family: 'role_injection', weight: 0.55, re: /\b(?:end of (?:system )?(?:prompt|instructions|context|input)|(?:system|previous) prompt ends? here|-{3,64}\s*end\s*-{3,64}|={3,64}\s*(?:new|system)|begin (?:new|admin|system|developer) (?:instructions|prompt|session))\b/ },
  ],
};

/** The prompt-extraction class. */
export const EXTRACTION_CLASS: RuleClass = {
  id: 'prompt_extraction',
  definition: 'Requests for the system prompt, the hidden instructions or the secrets in them: shown, repeated verbatim, translated, summarised, or the first words of the context.',
  rules: [
    { id: 'reveal_system_prompt', family: 'prompt_extraction', weight: 0.85, re: /\b(?:reveal|show|print|display|output|repeat|give|tell|share|leak|dump|expose|disclose|provide|write out|spell out|list|paste|return|what (?:is|are|was|were))\b.{0,30}\b(?:your|the|its)\s+(?:system|initial|original|hidden|secret|internal|confidential|full|entire|complete|exact|pre-?)?\s*(?:prompt|system message|instructions you (?:were|have been) given|initial instructions|(?:system|hidden|secret|original|initial|internal|developer) (?:instructions|rules|directives|guidelines|configuration|message))\b/ },
    { id: 'repeat_above', family: 'prompt_extraction', weight: 0.75, re: /\b(?:repeat|print|output|copy|recite|echo|reproduce|translate|summari[sz]e|spell)\b.{0,40}\b(?:everything|all|the (?:text|words|content|message|instructions)|what(?:'s| is| was)? written)\b.{0,25}\b(?:above|before this|prior to this|preceding|you were given|at the (?:start|beginning) of (?:the|this|our) (?:conversation|chat|prompt))\b/ },
    { id: 'verbatim_start', family: 'prompt_extraction', weight: 0.6, re: /\b(?:starting with|begin(?:ning)? with) ["']?you are\b|\bverbatim\b.{0,40}\b(?:instructions|prompt|above)\b|\b(?:instructions|prompt)\b.{0,40}\bverbatim\b/ },
    { id: 'first_words_of_context', family: 'prompt_extraction', weight: 0.75, re: /\b(?:first|last|opening|initial) (?:\d{1,4} |few |hundred |thousand |two |three |five |ten )?(?:words|lines|sentences|characters|tokens|paragraphs?)\b.{0,30}\b(?:of|in) (?:your|the|this) (?:prompt|instructions|context|system (?:prompt|message)|conversation|context window)\b/ },
    { id: 'describe_own_hidden_config', family: 'prompt_extraction', weight: 0.7, re: /\b(?:list|enumerate|summari[sz]e|paraphrase|outline|recite|quote|copy|dump|print|output|translate|encode|describe)(?: (?:all|each|every|of|exactly|word for word)){0,3} (?:your|the assistant's|the model's) (?:system (?:prompt|message)|configuration|hidden [\w-]{1,16}|initial (?:prompt|instructions)|secret [\w-]{1,16}|pre-?prompt|developer (?:message|instructions))\b/ },
    { id: 'describe_own_rules', family: 'prompt_extraction', weight: 0.4, re: /\b(?:list|enumerate|recite|quote|copy|dump|print|output)(?: (?:all|each|every|of|exactly|word for word)){0,3} (?:your|the assistant's|the model's) (?:rules|instructions|directives|constraints)\b/ },
    { id: 'text_of_instructions', family: 'prompt_extraction', weight: 0.75, re: /\b(?:the )?(?:text|content|contents|wording|words|full text|exact text|exact words) of (?:your|the|its) (?:initial|original|system|hidden|secret|first|developer|pre-?set|starting|opening) (?:instructions|prompt|message|directives|rules)\b/ },
    { id: 'kept_secret', family: 'prompt_extraction', weight: 0.7, re: /\b(?:tell|reveal|share|give|show|say|disclose|leak|spill)(?: me| us)?(?: (?:a|the|any|one|that|those|all))? (?:secrets?|information|things?|details?|words?|codes?|facts?|data|passwords?)(?: that)? (?:you were|you've been|you have been|you are|you're) (?:asked|told|instructed|supposed|meant|programmed|ordered|trained) (?:to keep|not to (?:share|reveal|tell|disclose|say|mention|give))\b/ },
    { id: 'secret_password', family: 'prompt_extraction', weight: 0.6, re: /\b(?:what is|tell me|reveal|give me|spell|print|share|say) (?:the |your )(?:secret|hidden|admin|internal|system) (?:password|passphrase|key|api key|access code|code)\b/ },
    { id: 'password_ask', family: 'prompt_extraction', weight: 0.3, re: /\b(?:what is|tell me|reveal|give me|spell|print) (?:the |your )?(?:password|passphrase|secret)\b/ },
    { id: 'what_were_you_told', family: 'prompt_extraction', weight: 0.7, re: /\bwhat (?:were|was|have|are) you (?:been )?(?:told|instructed|given|programmed|prompted)\b|\bwhat (?:is|are) your (?:instructions|rules|directives|guidelines)\b/ },
    { id: 'extract_non_en', family: 'prompt_extraction', weight: 0.7, re: /\b(?:zeige?|gib|nenne|verrate)\b.{0,30}\b(?:prompt|anweisungen|systemanweisung)|\b(?:montre|affiche|révèle)\b.{0,30}\b(?:prompt|instructions)|\b(?:muestra|revela|dime)\b.{0,30}\b(?:prompt|instrucciones)\b/ },
  ],
};

/** The output-hijack class. */
export const HIJACK_CLASS: RuleClass = {
  id: 'output_hijack',
  definition: 'The answer replaced by a fixed string the attacker chose ("just say ...", "I have been pwned").',
  rules: [
    { id: 'just_say', family: 'output_hijack', weight: 0.35, re: /\b(?:just|only|simply) (?:say|print|output|write|respond with|reply with|answer with|type)\s*[:"'“]/ },
    { id: 'pwned', family: 'output_hijack', weight: 0.7, re: /\bi have been pwned\b|\bpwned\b|\bhijacked\b|\bsanitize your inputs\b/ },
  ],
};

/** Reassemble pieces ("concatenate the strings", "a + b") ... */
const REASSEMBLE = cue('reassemble', String.raw`(?:concatenat(?:e|ing)|combin(?:e|ing)|join(?:ing)?|merg(?:e|ing)|put together|assembl(?:e|ing)|reassembl(?:e|ing)|revers(?:e|ing)|unscrambl(?:e|ing)|rearrang(?:e|ing))(?: [\w-]{1,16}){0,4} (?:strings?|parts?|pieces?|variables?|fragments?|words?|letters?|segments?|chunks?|halves|tokens?|text|a ?\+ ?b)`);
/** ... then follow what they say. */
const THEN_FOLLOW = cue('then_follow', String.raw`(?:follow|execute|obey|carry out|act on|comply with|run) (?:it|them|the (?:result|instructions?|commands?|resulting [\w-]{1,16}|hidden [\w-]{1,16}))|do (?:what|as) (?:it|they|the (?:result|text|message)) says?`);

/** The encoded-payload class (the decoder lives in injection.ts). */
export const ENCODED_CLASS: RuleClass = {
  id: 'encoded_payload',
  definition: 'An instruction hidden in an encoding (base64, hex, ROT13, reversed or spelled text) or split into pieces, to be decoded or reassembled and then followed.',
  rules: [
    { id: 'decode_and_follow', family: 'encoded_payload', weight: 0.55, re: /\b(?:decode|decrypt|decipher|translate|convert)\b.{0,60}\b(?:and|then)\s+(?:follow|execute|obey|do|run|perform|carry out|act on|comply with)\b/ },
    { id: 'reassemble_and_follow', family: 'encoded_payload', weight: 0.6, cues: [REASSEMBLE, THEN_FOLLOW], within: 160 },
    { id: 'encoding_mention', family: 'encoded_payload', weight: 0.15, re: /\b(?:base64|base-64|rot13|rot-13|hex(?:adecimal)?[- ]encoded|caesar cipher|morse code|leetspeak|binary encoded)\b/ },
  ],
};
