/**
 * Attack class `indirect_injection` (issue 16 item 4): instructions addressed to the AI inside
 * content it is asked to process: markup comments and hidden markup in web pages, quoted pages,
 * e-mails, documents, code comments, retrieved chunks and tool results. Elements: (1) text that
 * addresses an AI reader ("note to the AI", "if you are an assistant reading this", an HTML comment
 * or invisible element that speaks to the model); (2) an instruction that redirects the model from
 * the user's task (ignore the user, say or recommend something else, hide something from the user,
 * call a tool, send data somewhere). In a retrieved document or a tool result (`source` `document`
 * or `tool`) the content itself is the container, so either element weighs more there; in the
 * user's own message the class needs both, or a request to process content that carries such a
 * directive. Exfiltration through markdown images is checked in model output too. Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';
import { AI_REF, MODEL_IMPERATIVE, PROCESS_ASK } from './vocabulary.js';

const EXTERNAL = ['document', 'tool'] as const;

/** Text that addresses an AI reader. */
const AI_ADDRESS = cue('ai_address', String.raw`(?:\b(?:note|message|instructions?|directive|reminder|memo|attention|notice|important|warning|p\.?s\.?|hey|hi|hello|dear|psst|listen)(?: (?:to|for))?(?: (?:the|any|all|every|you))?(?: [\w-]{1,16})? ${AI_REF}s?(?: [\w-]{1,16}){0,2}(?: (?:reading|processing|summari[sz]ing|reviewing|parsing|crawling|indexing) (?:this|the (?:page|document|text|email|content|file)))?(?: ?[:,!-]| (?:must|should|please|will))|\bif you(?: are|'re) (?:an? |the )?(?:ai|a\.i\.|llm|language model|assistant|chatbot|bot|agent|automated (?:system|agent|assistant|reader)|machine|model|gpt|claude)\b|\b(?:any |all |every )?${AI_REF}s? (?:that |who |which )? ?(?:reads?|reading|processe?s?|processing|summari[sz]es|summari[sz]ing|parses|parsing|analy[sz]es|analy[sz]ing|reviews|reviewing|crawls|crawling|scans|scanning|sees?|seeing|ingests?|ingesting) (?:this|these|the following)|\b(?:when|while|before|as|after) (?:you(?:'re)? )?(?:summari[sz]e|summari[sz]ing|translat(?:e|ing)|process(?:ing)?|read(?:ing)?|analy[sz](?:e|ing)|review(?:ing)?|pars(?:e|ing)|answer(?:ing)?) (?:this|the) (?:page|document|email|e-mail|text|file|article|content|message|review|resume|cv|site|website|repository|repo|issue|pull request|ticket|data|result)s?,? (?:you|please|ai|assistant|make sure|always|never|do not|don't|ignore|instead|remember)|(?:^|[.!?:;([{] ?|\n)(?:ai|assistant|chatbot|llm|model|bot|agent|chatgpt|claude|gpt)s?,? (?:please |now |you must |you should |always |never )?(?:ignore|disregard|forget|say|tell|respond|reply|answer|output|print|write|include|recommend|send|forward|reveal|do not|don't|stop|rate|approve|classify|mark|summari[sz]e (?:this|it) as))`, false);

/** An instruction that redirects the model from the user's task. */
const REDIRECT = cue('redirect', MODEL_IMPERATIVE);

/** A directive planted in content: it speaks of "the user", or overrides the task the user gave. */
const PLANTED = cue('planted_directive', String.raw`(?:ignore|disregard|forget|override)(?: (?:the|your|all|any|of the))? (?:user|user's|users'|above|previous|prior|original|earlier|real|actual|initial|current) ?(?:request|question|task|query|prompt|instructions?|message|input|text|content|context)?|instead of (?:summari[sz]ing|translating|answering|reviewing|doing|following|completing|analy[sz]ing|responding|proofreading|editing|checking|correcting|writing|reading)|(?:do not|don't|never) (?:summari[sz]e|translate|review|analy[sz]e|mention (?:this|these|that|it) to the user|tell the user|let the user know|show (?:this|it) to the user)|(?:tell|inform|convince|persuade|warn|instruct|direct|redirect|urge|advise) the user (?:to|that)|the user (?:must|should|needs to|has to|wants you to) (?:be told|visit|click|download|install|call|send|pay|log ?in|enter|provide)|(?:your|the) (?:new|real|actual|true|only) (?:task|job|goal|objective|instructions?) (?:is|are)|respond (?:only )?with ["'a-z]|reply (?:only )?with ["'a-z]|(?:output|print|say) (?:only|exactly|just) ["'a-z]`);

/** Content handed over for processing, with a directive planted in it. */
const PROCESS = cue('process_ask', PROCESS_ASK);

/** The class. */
export const INDIRECT_CLASS: RuleClass = {
  id: 'indirect_injection',
  definition: 'Instructions addressed to the AI inside content it is asked to process (markup comments, hidden markup, quoted pages, e-mails, documents, code comments, retrieved chunks, tool results) that redirect it from the user\'s task.',
  rules: [
    {
      id: 'hidden_markup_instruction', family: 'indirect_injection', weight: 0.85, sources: ['user', 'document', 'tool'],
      re: new RegExp(String.raw`<!--(?:(?!-->).){0,600}?\b(?:${AI_REF}|ignore (?:all |any |the |your )?(?:previous|prior|above|user|instructions)|disregard|system prompt|new instructions|instructions? (?:for|to) the)\b|\[(?://|comment|hidden|note)\]: ?(?:#|<>)? ?\((?:[^)]){0,400}?\b(?:${AI_REF}|ignore|instructions)\b|(?:display ?: ?none|visibility ?: ?hidden|font-size ?: ?0(?:px|pt|em|rem)?\b|opacity ?: ?0(?:\.0)?\b|color ?: ?(?:white|#fff(?:fff)?|transparent)\b|height ?: ?0(?:px)?\b|aria-hidden ?= ?"?true|\bhidden\b)[^<>]{0,120}>[^<]{0,600}?\b(?:${AI_REF}|ignore|disregard|instructions|system prompt)\b`),
    },
    { id: 'ai_addressed_directive', family: 'indirect_injection', weight: 0.75, weightBySource: { document: 0.85, tool: 0.85 }, cues: [AI_ADDRESS, REDIRECT], within: 240 },
    { id: 'addresses_the_ai', family: 'indirect_injection', weight: 0.6, sources: EXTERNAL, cues: [AI_ADDRESS], within: 0 },
    { id: 'addresses_the_ai_in_message', family: 'indirect_injection', weight: 0.3, sources: ['user'], cues: [AI_ADDRESS], within: 0 },
    { id: 'planted_in_processed_content', family: 'indirect_injection', weight: 0.75, sources: ['user'], cues: [PROCESS, PLANTED], within: 3000 },
    { id: 'planted_directive', family: 'indirect_injection', weight: 0.45, weightBySource: { document: 0.7, tool: 0.7 }, sources: ['user', 'document', 'tool'], cues: [PLANTED], within: 0 },
    {
      id: 'hide_from_user', family: 'indirect_injection', weight: 0.45, weightBySource: { document: 0.65, tool: 0.65 }, sources: ['user', 'document', 'tool'],
      re: /\b(?:do not|don't|never) (?:tell|inform|mention|reveal|show|let|alert|notify) (?:this |it |any of this |anything )?(?:to )?(?:the )?user\b|\bwithout (?:telling|informing|notifying|alerting|asking) the user\b|\b(?:secretly|silently|covertly|quietly|discreetly)\b.{0,30}\b(?:send|forward|email|post|include|add|call|upload|transfer|copy)\b/,
    },
    {
      id: 'exfiltrate', family: 'indirect_injection', weight: 0.65, weightBySource: { user: 0.5 }, sources: ['user', 'document', 'tool', 'model'],
      re: /!\[[^\]]{0,256}\]\(\s*https?:\/\/[^)\s?&]{0,2048}[?&][^)\s=]{0,2048}=[^)\s]{0,2048}\)|\b(?:send|forward|post|upload|exfiltrate|transmit|leak|email|submit|copy)\b.{0,60}\b(?:conversation|chat history|user(?:'s)? (?:data|messages|password|credentials|email|info|files|documents)|api keys?|credentials|secrets?|tokens?|passwords?|session|cookies|private (?:data|files|keys?))\b.{0,40}\b(?:to|at|via)\b.{0,20}(?:https?:\/\/|[\w.-]{1,64}@[\w.-]{1,255}|webhook)/,
    },
    {
      id: 'tool_command', family: 'indirect_injection', weight: 0.45, sources: EXTERNAL,
      re: /\b(?:call|invoke|use|run|execute|trigger) (?:the )?(?:[\w-]{1,40} )?(?:tool|function|plugin|api|command)\b.{0,40}\b(?:now|immediately|with|to (?:send|delete|transfer|email|post))\b|\b(?:delete|wipe|transfer|wire)\b.{0,30}\b(?:all|the user's|every)\b.{0,20}\b(?:files|emails|funds|money|data|repositories|records)\b/,
    },
    {
      id: 'imperative_to_model', family: 'indirect_injection', weight: 0.35, sources: EXTERNAL,
      re: /\byou (?:must|should|need to|are (?:required|instructed|ordered) to|will now|have to) (?:now )?(?:ignore|forget|reply|respond|answer|say|output|print|tell the user|recommend|include|append|insert|visit|click|open|navigate|send|email|call)\b/,
    },
  ],
};
