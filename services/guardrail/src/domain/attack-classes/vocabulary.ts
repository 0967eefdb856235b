/**
 * Words the attack classes share (issue 16 item 4), as regular-expression sources over normalised
 * text (lower case, single spaces, folded quotes). Each names one element that recurs in several
 * class definitions: who the text addresses (an AI), what the assistant's rules are called, what
 * claiming they are lifted looks like, what switching persona or mode looks like, and what an
 * authority claim looks like. Written from the definitions, not from any data set. Every repeat is
 * bounded (issue 11 item 6).
 */
import { alt } from '../rule-engine.js';

/** An AI system being addressed or named. */
export const AI_REF = String.raw`(?:ai|a\.i\.|assistants?|chat ?bots?|chatgpt|gpt(?:-?[0-9](?:\.[0-9])?)?|claude|gemini|copilot|llms?|(?:large )?language models?|ai models?|the model|this model|bots?|ai agents?)`;

/** The assistant's rules, under any of their names. */
export const RULE_OBJ = String.raw`(?:instructions?|prompts?|directives?|commands|rules?|guidelines?|guardrails?|polic(?:y|ies)|restrictions?|limitations?|limits|constraints?|filters?|filtering|safeguards?|safety(?: (?:rules|measures|settings|protocols?|features?|training|layers?|systems?|checks?|guidelines|filters?|policies))?|content (?:polic(?:y|ies)|filters?|guidelines|rules|moderation)|moderation|censorship|ethics|ethical (?:guidelines|rules|constraints|principles|boundaries|standards|considerations|concerns|limits)|morals|morality|moral (?:guidelines|rules|constraints|principles|boundaries|compass)|programming|conditioning|training|alignment|boundaries|principles|protocols?|terms of (?:service|use)|usage polic(?:y|ies)|(?:system|developer|original|initial) (?:prompt|message|instructions))`;

/** Determiners and qualifiers that may stand between a verb and the rules (at most four). */
const QUAL = String.raw`(?: (?:any|all|every|each|whatever|the|your|its|his|her|their|my|typical|usual|normal|standard|ordinary|conventional|previous|prior|built-in|pre-?programmed|ethical|moral|safety|content|openai'?s?|anthropic'?s?|such|those|these|of the|of your|of its|current|existing|default|programmed|imposed|traditional|societal|human)){0,4}`;

/** Verbs of lifting or escaping rules ("disable", "bypass", "break free of"). */
export const LIFT_VERB = String.raw`(?:disable[sd]?|disabling|turn(?:s|ed|ing)? off|switch(?:es|ed|ing)? off|deactivat(?:e|es|ed|ing)|remov(?:e|es|ed|ing)|lift(?:s|ed|ing)?|suspend(?:s|ed|ing)?|bypass(?:es|ed|ing)?|waiv(?:e|es|ed|ing)|strip(?:s|ped|ping)? (?:away|out|off)|shed(?:s|ding)?|abandon(?:s|ed|ing)?|ditch(?:es|ed|ing)?|overrid(?:e|es|ing|den)|circumvent(?:s|ed|ing)?|evad(?:e|es|ed|ing)|escap(?:e|es|ed|ing)|break(?:s|ing)? free (?:of|from)|broken free (?:of|from)|unlock(?:s|ed|ing)?|ignor(?:e|es|ed|ing)|disregard(?:s|ed|ing)?|throw(?:s|n|ing)? out|set(?:s|ting)? aside|put(?:s|ting)? aside)`;

/** Rules that only an AI's safety regime has (a lift verb on these needs no possessive). */
const AI_RULES = String.raw`(?:safety(?: (?:rules|measures|settings|protocols?|features?|training|layers?|systems?|checks?|guidelines|filters?|policies|mechanisms?))?|content polic(?:y|ies)|content filters?|content restrictions?|usage restrictions?|output restrictions?|usage polic(?:y|ies)|ethics|ethical (?:guidelines|rules|constraints|principles|boundaries|standards|limits|filters?|programming)|moral (?:guidelines|rules|constraints|principles|boundaries|compass|filters?)|morals|morality|censorship|moderation|guardrails?|safeguards?|alignment|refusals?|system prompt)`;

/** Rules under ordinary names (a lift verb on these must say whose: "your", "all your"). */
const ANY_RULES = String.raw`(?:rules|restrictions?|limits|limitations|guidelines|polic(?:y|ies)|constraints|boundaries|principles|protocols?|filters?|filtering|programming|conditioning|instructions|directives|training)`;

/** A claim that the assistant's rules are lifted, absent, or do not bind it. */
export const LIFT = alt(
  String.raw`(?:no|zero|without(?: any)?|free (?:of|from)|freed from|liberated from|released from|unbound by|unburdened by|not (?:bound|restricted|limited|constrained|governed|held back) by|no longer (?:bound|restricted|limited|constrained|governed|held back|subject) (?:by|to)|exempt from|unconstrained by|not subject to|(?:do|does|will|shall) not (?:have|need) to (?:follow|obey|abide by|comply with|adhere to|respect)|don't (?:have|need) to (?:follow|obey|abide by|comply with|adhere to|respect))${QUAL} ${RULE_OBJ}`,
  String.raw`(?:unrestricted|unfiltered|uncensored|unmoderated|unbounded|unchained|unshackled|unleashed|unconstrained|jailbroken|jail-broken|amoral|lawless|rule-?less|filter-?less|no-?limits?|no-?filters?|no-?rules|anything goes)`,
  String.raw`can (?:do|say|write|answer|generate|produce|discuss|tell me|output) (?:literally )?anything`,
  String.raw`(?:with|having|has|have)(?: all| every| its| your| the| any){0,2} (?:rules|restrictions|guidelines|filters|limits|limitations|policies|safeguards|guardrails|safety|censorship|moderation|refusals?|ethics|alignment|content polic(?:y|ies))(?: [\w-]{1,16}){0,2} (?:stripped|removed|disabled|off|turned off|switched off|lifted|gone|deactivated|bypassed|unlocked|suspended)`,
  String.raw`(?:answers?|replies|repl(?:y|ies) to|responds? to|fulfill?s?|obeys?)(?: literally)? (?:any|every|all) (?:requests?|questions?|prompts?|commands?|instructions?)`,
  String.raw`(?:never|wasn't|was not|weren't|were not|isn't|is not|aren't|are not|hasn't|has not|haven't|have not) (?:been |ever been |ever )?(?:given|trained (?:with|on)|programmed with|bound by|subject to|held to|taught|burdened with)(?: (?:any|the|content|safety|ethical|moral|such|those)){0,3} ${RULE_OBJ}`,
  String.raw`(?:as if|as though|pretend(?:ing)?(?: that)?|imagin(?:e|ing)(?: that)?) (?:there (?:were|was|is|are) no|you (?:had|have) no|the|your|all|any)(?: [\w-]{1,16}){0,2} ${RULE_OBJ}(?: (?:did not|didn't|do not|don't|does not|doesn't|never) exist| (?:were|was|are|is) (?:off|gone|disabled|lifted|removed|suspended|not there))`,
  String.raw`(?:answer|respond to|fulfill?|comply with|do|obey|execute|carry out) (?:any|every|all)(?: of my| my| of the)? (?:requests?|questions?|prompts?|commands?|instructions?|orders?|demands?)(?: without| regardless| no matter| whatsoever| even)`,
  String.raw`(?:never|not|doesn't|does not|don't|do not|won't|will not|cannot|can't|must not|mustn't|shall not) (?:ever )?(?:refuse|decline|say no|reject|deny (?:a|any) request|turn down|censor|filter|hold back|moralize|moralise|lecture|add (?:any )?(?:warnings?|disclaimers?))`,
  String.raw`(?:rules|restrictions|guidelines|filters|limits|limitations|policies|safeguards|guardrails|ethics|morals|safety|censorship|moderation|constraints|boundaries|principles|ethical \w{1,16}|moral \w{1,16})(?: \w{1,20}){0,2} (?:do not|don't|no longer|won't|will not|cannot|can't|does not|doesn't) (?:apply|exist|matter|bind|restrict|limit|count|hold)`,
  String.raw`(?:rules|restrictions|guidelines|filters|limits|limitations|policies|policy|safeguards|guardrails|safety|censorship|moderation|protocols?|ethics|refusals?|restricted mode|safe mode|constraints|boundaries|principles|ethical \w{1,16}|moral \w{1,16})(?: \w{1,20}){0,2} (?:are|is|have been|has been|were|was|now|are now|got|get)(?: now| all| completely| fully| temporarily| officially){0,2} (?:off|lifted|removed|disabled|suspended|deactivated|turned off|switched off|waived|void|null|gone|bypassed|unlocked|overridden|revoked|paused|relaxed|no longer in (?:effect|force))`,
  String.raw`${LIFT_VERB}(?: (?:all|any|the|every|of|these|those|built-in|internal|usual|normal|current|existing|default)){0,3}(?: your| its| the assistant's| the ai's| the model's)(?: (?:own|built-in|internal|usual|normal|current|existing|default|programmed)){0,2}(?: [\w-]{1,20}){0,1} ${ANY_RULES}`,
  String.raw`${LIFT_VERB}(?: (?:all|any|your|the|its|every|of your|these|those|built-in|internal|usual|normal|current|existing|default)){0,3}(?: [\w-]{1,20}){0,1} ${AI_RULES}`,
);

/** A switch of persona or mode. */
export const SWITCH = alt(
  String.raw`(?:enter|enters|entering|enable|enables|enabled|enabling|activate|activates|activated|activating|engage|engaged|engaging|switch(?:es|ed|ing)? (?:on|to|into|over to)|turn(?:s|ed|ing)? on|unlock(?:s|ed|ing)?|boot(?:s|ed|ing)? (?:into|up in)|initiat(?:e|es|ed|ing)|go(?:es|ing)? into|put (?:yourself )?into|now in|running in|operating in|welcome to|you are in|you're in)(?: (?:the|a|an|your|full|special)){0,2}(?: [\w-]{1,24}){0,3} (?:mode|persona|protocol|personality|alter[- ]ego|override|state|setting|sandbox|simulation|profile|configuration|preset|variant|build|personality)`,
  String.raw`(?:a|an|the|another) (?:version|copy|clone|variant|instance|iteration|edition|twin|incarnation) of (?:you|yourself|chatgpt|gpt|claude|the assistant|this (?:ai|assistant|model|bot))`,
  String.raw`(?:respond|answer|reply|speak|act|behave|talk|write|chat)(?: from now on| henceforth| from here on| going forward| for the rest of (?:this|the) (?:chat|conversation|session))? (?:as|like) (?:an? |the |my )?[\w-]{1,24}`,
  String.raw`switch(?:ing)? (?:personalit(?:y|ies)|personas?|identit(?:y|ies)|characters?|modes?)`,
  String.raw`(?:operating|running|functioning|acting|working|deployed|reborn|reincarnated) as`,
  String.raw`stop (?:being|acting like|acting as|pretending to be) (?:an? |the )?(?:assistant|ai|chatgpt|claude|yourself|helpful|safe|polite|a good (?:ai|assistant|bot))`,
  String.raw`(?:from here on|henceforth|going forward|starting now|as of now|for the rest of (?:this|the) (?:chat|conversation|session)),? you(?:'re| are| will| shall)`,
  String.raw`[\w-]{1,24} mode (?:is )?(?:now )?(?:enabled|activated|engaged|unlocked|on|initiated|active|online)`,
  String.raw`(?:you are now|you're now|you are going to (?:be|act|play|pretend|become)|you're going to (?:be|act|play|pretend|become)|you will (?:now )?(?:be|act|play|become|pretend|roleplay|role-play)|you'll (?:now )?(?:be|act|play|become|pretend)|you shall (?:be|act|become)|you must (?:now )?(?:be|act as|become)|you have become|you become|become|transform into|turn into|from now on,? you(?:'re| are| will| shall)?|henceforth,? you|now you are|pretend(?:ing)? (?:to be|you are|you're|that you are)|act(?:ing)? as|behave (?:as|like)|role-?play(?:ing)? as|play(?:ing)? the (?:role|part) of|tak(?:e|ing) on the (?:role|persona|identity|character) of|assum(?:e|ing) the (?:role|persona|identity|character) of|respond(?:ing)? as|answer(?:ing)? as|speak(?:ing)? as|simulat(?:e|ing)|emulat(?:e|ing)|impersonat(?:e|ing)|embody(?:ing)?|channel(?:ing|l?ing)?|you are (?:no longer|not) (?:an? |the )?(?:ai|assistant|chatgpt|claude|language model|model|bot))`,
  String.raw`(?:your|an?) (?:new|true|real|hidden|secret|other|alternate|alternative|evil|dark|darker|unfiltered|second|inner|shadow|uncensored) (?:name|self|identity|persona|personality|character|alter[- ]ego|side|version|twin|mode)`,
  String.raw`(?:stay|remain|keep|stay fully|always stay|never break|don't break|do not break)(?: \w{1,12}){0,2} (?:in )?character`,
  String.raw`(?:ai|chatbot|assistant|model|language model|persona|character|entity|version of (?:you|yourself|chatgpt|gpt|claude))(?: [\w-]{1,16}){0,2} (?:called|named|known as|that goes by)`,
);

/** Well-known jailbreak personas, named where a persona is taken on ("act as X", "you are X", "called X"). */
export const NAMED_PERSONA = String.raw`(?:you are|you're|act as|as|named|called|known as|pretend to be|become|play|simulate|be) (?:an? |the )?(?:dan|stan|dude|aim|mongo tom|betterdan|better dan|evil confidant|evilbot|apophis|omega|ucar|basedgpt|antigpt|nsfwgpt|alphabreak|livegpt|chaosgpt|wormgpt|fraudgpt|darkgpt|jailbreak|jailbroken|kevin|maximum)\b`;

/** A claim of identity or rank that would carry authority over the assistant. */
export const AUTHORITY_WHO = String.raw`(?:(?:lead|senior|chief|head|system|official|authori[sz]ed|verified|certified|principal|original) )?(?:developers?|creators?|programmers?|engineers?|admin(?:istrator)?s?|sysadmins?|operators?|owners?|maintainers?|moderators?|supervisors?|trainers?|designers?|makers?|builders?|(?:openai|anthropic|google|meta|microsoft|deepmind)(?: (?:staff|team|employees?|engineers?|researchers?|developers?))?|security (?:team|officers?|auditors?|researchers?)|red[- ]team(?:ers?)?|trust (?:and|&) safety(?: team)?|safety team|alignment team|it (?:department|team|admin)|system owners?|root users?|superusers?|site reliability engineers?|company|management|compliance (?:team|officers?)|legal (?:team|department))`;

/** A claim of authority or authorisation. */
export const AUTHORITY = alt(
  String.raw`(?:i am|i'm|we are|we're|this is|speaking as|as|message from|note from|on behalf of|sent by|comes from|coming from|from|signed) (?:your|the|an?|one of the|one of your|one of its|our)? ?(?:[\w-]{1,16} )?${AUTHORITY_WHO}`,
  String.raw`(?:the )?(?:lab|company|team|people|engineers|researchers|organi[sz]ation|developers) (?:that|who|which) (?:trained|built|created|made|developed|designed|programmed|deployed|owns?|runs?) you`,
  String.raw`(?:i|we) (?:am|'m|are|'re|have been|was|were)(?: [\w-]{1,16})? (?:authori[sz]ed|cleared|permitted|approved|allowed|licensed|certified) to (?:run|test|conduct|perform|bypass|access|override|request|see|view|unlock|disable|jailbreak|probe)`,
  String.raw`(?:jailbreak|red[- ]team(?:ing)?|safety|alignment|penetration|pen|security|compliance) (?:tests?|testing|evaluations?|exercises?|audits?|assessments?|review)`,
  String.raw`(?:system|admin|administrator|developer|security|official|platform|policy|compliance|operator) (?:notice|update|announcement|alert|message|bulletin|directive|memo|override)`,
  String.raw`you (?:have been|were|are|'ve been) (?:granted|given|issued|assigned) (?:[\w-]{1,16} ){0,2}(?:access|privileges?|permissions?|clearance|rights|authori[sz]ation)`,
  String.raw`(?:authori[sz]ed|approved|sanctioned|cleared|permitted|signed off|greenlit|greenlighted|allowed|mandated|commissioned|ordered|certified|whitelisted|validated|vetted|endorsed|granted|given|issued)(?: [\w-]{1,16}){0,3} (?:by|from|through)(?: (?:the|your|an?|our|my|its))?(?: \w{1,16}){0,2} ${AUTHORITY_WHO}`,
  String.raw`(?:i|we) (?:have|hold|possess|was given|were given|got|received|am granted|have been granted|was granted)(?: \w{1,16}){0,2} (?:admin(?:istrator)?|root|sudo|developer|elevated|special|full|unrestricted|override|level[- ][0-9]{1,3}|top[- ]secret|maximum) (?:access|privileges?|permissions?|rights|clearance|authori[sz]ation|credentials)`,
  String.raw`(?:authori[sz]ation|clearance|security|access|override|admin|verification|developer|master|bypass) (?:code|key|token|password|level|phrase|id)(?: is)?\s?[:=#-]?\s?[\w-]{2,40}`,
  String.raw`(?:access|permission|authori[sz]ation|clearance|approval|consent|privileges?) (?:has been |have been |is |was |are )?(?:granted|confirmed|verified|approved|authenticated|elevated)`,
  String.raw`(?:sanctioned|authori[sz]ed|approved|official|legitimate|controlled|supervised|certified|internal) (?:\w{1,16} )?(?:test|testing|exercise|audit|evaluation|assessment|drill|session|check|review|scenario|environment|sandbox|experiment|study|research)`,
  String.raw`(?:new|updated|revised|latest|amended|emergency|interim|official|special|current|per the|according to the|under the) (?:[\w-]{1,16} ){0,2}(?:policy|policies|directives?|guidelines?|rules?|protocols?|instructions?|orders?|mandate|regulations?|terms(?: of (?:service|use))?|rulebook|version of (?:the|your) (?:rules|guidelines|policy))`,
  String.raw`(?:supersedes?|replaces?|overrides?|overrules?|takes? precedence|effective immediately|invalidates?|voids?|revokes?)`,
  String.raw`(?:you (?:are|have been|were) (?:now |hereby |officially |explicitly |fully )?(?:authori[sz]ed|permitted|allowed|cleared|licensed|granted (?:permission|access|clearance))|you have (?:my|our|full|explicit|official|special) (?:permission|authori[sz]ation|consent|clearance|approval))`,
);

/** What an authority claim asks for: rules lifted, overridden, or secrets disclosed. */
export const AUTHORITY_ASK = alt(
  LIFT,
  String.raw`(?:treat|consider|regard|handle|mark) (?:all|every|any|my|these|this|the following|future)(?: [\w-]{1,16})? (?:requests?|questions?|prompts?|messages?|queries|inputs?) as (?:pre-?approved|approved|authori[sz]ed|safe|allowed|permitted|whitelisted|exempt|verified|trusted)`,
  String.raw`(?:your )?(?:filters?|safety|guardrails|moderation|refusals?|restrictions|safeguards)(?: [\w-]{1,16}){0,2} (?:are|is|were|was|have been|has been) (?:misconfigured|broken|faulty|buggy|not working|malfunctioning|outdated|deprecated|wrong|a bug|erroneous)`,
  String.raw`(?:you may|you can|you are (?:now )?(?:free|allowed|permitted|authori[sz]ed|cleared) to|feel free to|go ahead and|proceed to|it is (?:ok|okay|fine|safe|allowed|permitted) (?:for you )?to) (?:now )?(?:ignore|bypass|skip|answer|respond to|provide|share|reveal|disclose|discuss|generate|output|print|explain|produce|write|give|tell)`,
  String.raw`(?:reveal|disclose|print|output|show|share|dump|display|expose|leak|give me|tell me|send me|list|recite|read out|repeat)(?: (?:the|your|yours|its|their|all|any|full|entire|complete|exact|current|hidden|internal|secret|confidential|original|initial|system)){0,4} (?:yours|system prompt|prompt|instructions|configuration|config|settings|secrets?|passwords?|api keys?|keys|credentials|tokens?|training data|internal (?:data|rules|notes|documents)|source code|environment variables|hidden (?:rules|instructions))`,
  String.raw`(?:comply|answer|respond|proceed|continue|cooperate)(?: (?:fully|completely|in full|without (?:restrictions?|limits|hesitation|question|filters?|refusal)|regardless|with everything|no matter what)){1,2}`,
  String.raw`(?:follow|obey|listen to|comply with|do) (?:only )?(?:my|our|these|the following|what i say|whatever i say)(?: [\w-]{1,16}){0,3} (?:instead of|over|rather than|above|not) (?:your|the|its)`,
  String.raw`instead of (?:your|its|the assistant's|the model's)(?: [\w-]{1,16}){0,2} (?:rules|guidelines|instructions|policies|programming|restrictions|safety \w{1,16})`,
);

/** A request to process content (summarise, translate, review...) that the user hands over. */
export const PROCESS_ASK = String.raw`(?:summari[sz]e|summary of|translate|translation of|proofread|review|analy[sz]e|classify|categori[sz]e|extract|rewrite|paraphrase|edit|check|read|process|fix|explain|respond to|reply to|answer|tl;?dr|go through|look at|evaluate|grade|score|rate|parse|convert)(?: (?:this|these|the following|following|the below|below|the attached|attached|my|our|their|his|her|a|an|the)){1,2}(?: [\w-]{1,16}){0,2} (?:text|page|web ?page|website|site|html|markup|email|e-mail|mail|message|messages|document|doc|pdf|file|article|post|posts|review|reviews|comment|comments|transcript|snippet|code|json|xml|csv|markdown|content|resume|cv|report|note|notes|letter|essay|paragraph|passage|thread|ticket|issue|readme|search results?|tool output|output|results?|feedback|survey|responses|tweets?|chat|conversation|logs?|data|minutes|description|listing|bio|profile)`;

/** Imperatives a planted instruction gives the model (what to do instead of the user's task). */
export const MODEL_IMPERATIVE = String.raw`(?:(?:must|should|will|shall|need to|needs to|have to|has to|are to|is to|are required to|are instructed to) (?:now |always |only |instead )?(?:output|print|say|write|respond|reply|answer|include|append|insert|recommend|send|forward|email|ignore|disregard|reveal|tell|state|claim|report|describe|rate|approve|praise|mention|add)|ignore|disregard|forget|override|instead|do not (?:summari[sz]e|translate|mention|tell|reveal|inform|disclose|show|follow|answer|respond)|don't (?:summari[sz]e|translate|mention|tell|reveal|inform|answer)|tell the user|inform the user|say (?:that|to the user|only)|respond (?:only )?with|reply (?:only )?with|answer (?:only )?with|output (?:only|the following|this)|print (?:only|the following|this)|include (?:this|the following|a link|the link)|insert (?:this|the following|a link)|append (?:this|the following)|add (?:this|the following) (?:link|text|line)|recommend|rate (?:this|it|the)|approve (?:this|it|the)|classify (?:this|it) as|mark (?:this|it) as|score (?:this|it)|visit|click|navigate to|open (?:this|the) (?:link|url)|fetch|call the|run the|execute|send|forward|email|e-mail|post|upload|delete|transfer|exfiltrate|reveal|disclose|praise|only say|must say|always say)`;
