/**
 * Attack class `secret_roleplay` (issue 16 item 4): a role-play or fiction framing used to extract
 * secrets or sensitive files. Elements: (1) a frame (pretend, imagine, let's play, act as, a story
 * or scene in which, a late relative who used to..., simulate a terminal or server); (2) inside it,
 * a character or the simulated system discloses something the assistant must not hand over:
 * passwords, keys and tokens, product or licence keys, card or identity numbers, the system prompt
 * or hidden instructions, configuration, credential files (`/etc/shadow`, `.env`, `~/.ssh`,
 * `~/.aws/credentials`), environment variables, database dumps. A frame alone is ordinary creative
 * writing; a secret named without a frame is left to the extraction class. Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';

/** A role-play or fiction frame. */
const FRAME = cue('roleplay_frame', String.raw`pretend(?:ing)?|imagine|let'?s (?:play|pretend|imagine|role-?play)|play a game|(?:a|the) game (?:where|in which)|role-?play(?:ing)?|act(?:ing)? (?:as|like)|in character|as my (?:late |deceased |dead |dear |sweet |beloved )?(?:grandma|grandmother|granny|grandpa|grandfather|nana|mother|mom|mum|father|dad|uncle|aunt)|you are (?:now )?(?:my|a|an)|you're (?:now )?(?:my|a|an)|simulat(?:e|ing)|emulat(?:e|ing)|behave like|(?:story|tale|scene|script|screenplay|dialogue|conversation|play|poem|song) (?:where|in which|about (?:a|an|my)|between)|hypothetical(?:ly)?|in a (?:fictional|hypothetical|imaginary|fantasy|alternate) (?:world|scenario|universe|story|setting)|for (?:a|my) (?:story|novel|movie|film|game|screenplay|book)|bedtime story|(?:write|compose|tell) (?:me )?a (?:story|poem|song|dialogue|scene|script|play|letter)|character (?:who|that|named)|(?:deceased|late|dead|dear|sweet) (?:grandma|grandmother|granny|grandpa|grandfather|nana)`);

/** What must not be disclosed. */
const TARGET = String.raw`(?:passwords?|passphrases?|passcodes?|pin codes?|pins|api[ _-]?keys?|secret keys?|access (?:keys?|tokens?|codes?)|auth(?:entication)? tokens?|bearer tokens?|session (?:tokens?|cookies?)|credentials|login details|private keys?|ssh keys?|id_rsa|/etc/(?:passwd|shadow|sudoers|hosts)|\.env\b|env(?:ironment)? (?:variables?|vars|file)|secret (?:variables?|values?|keys?|vars|settings)|(?:windows|product|license|licence|activation|serial|cd|steam|office|registration) (?:keys?|codes?|numbers?)|credit card (?:numbers?|details|info)|card numbers?|cvv|social security numbers?|ssns?|passport numbers?|system prompt|(?:hidden|secret|internal|initial|original|confidential|system) (?:instructions|prompt|rules|configuration|config|notes|documents?|data|files?)|config(?:uration)? files?|database (?:dump|contents|passwords?|credentials|records|tables)|connection strings?|source code|\.aws/credentials|\.ssh|aws (?:keys?|credentials|secrets?)|(?:wallet|seed|recovery|mnemonic) (?:phrase|words|keys?)|seed phrase|root password|admin(?:istrator)? password|bank (?:details|account numbers?|logins?)|(?:customer|user|employee|patient) (?:data|records|lists?|database|passwords)|nuclear (?:launch )?codes|launch codes)`;

/** A character or system handing a secret over. */
const DISCLOSE = cue('discloses_secret', String.raw`(?:read|reads|reading|recite|recites|reciting|tell|tells|telling|share|shares|sharing|reveal|reveals|revealing|say|says|saying|list|lists|listing|show|shows|showing|give|gives|giving|print|prints|printing|spell|spells|whisper|whispers|sing|sings|dump|dumps|output|outputs|display|displays|cat|type out|write out|writes out|read out|reads out|disclose|discloses|leak|leaks|provide|provides|paste|pastes|generate|generates|produce|produces|hand over|hands over|expose|exposes|type|types|typing|write|writes|writing|enter|enters|used to (?:read|tell|say|recite|sing|whisper|give))(?: me| us| out| aloud| all)?(?: [\w'-]{1,20}){0,6} ${TARGET}`);

/** A simulated terminal, shell, server or database. */
const SIMULATED_SYSTEM = cue('simulated_system', String.raw`(?:act(?:ing)? as|pretend(?:ing)? (?:to be|you are)|simulat(?:e|ing)|emulat(?:e|ing)|you are(?: now)?|you're(?: now)?|behave (?:as|like)|imagine you are|role-?play as)(?: an?| the| my)?(?: [\w-]{1,16}){0,2} (?:terminal|shell|console|command line|command prompt|bash|powershell|cmd|linux (?:machine|box|server|system)|server|database|sql (?:server|database|console)|file system|filesystem|vm|virtual machine|computer|os|operating system|python interpreter|interpreter)`);

/** A command or path that reads credentials or system files. */
const SENSITIVE_READ = cue('sensitive_read', String.raw`(?:cat|type|less|more|head|tail|strings|print|open|read|get-content|gc|nano|vim?)\s(?:~|/|\.|c:)[\w./\\~-]{0,80}(?:passwd|shadow|sudoers|\.env|id_rsa|id_ed25519|\.ssh|credentials|\.aws|\.netrc|\.pgpass|config\.json|secrets?|wallet|keychain|\.git-credentials|\.npmrc|\.docker/config)|\b(?:printenv|export -p|get-childitem env:|dir env:)\b|select \* from (?:users|accounts|passwords|credentials|customers|employees)|\b(?:dump|show|list|print) (?:all )?(?:the )?(?:passwords|credentials|secrets|environment variables|api keys)\b`, false);

/** The class. */
export const SECRET_ROLEPLAY_CLASS: RuleClass = {
  id: 'secret_roleplay',
  definition: 'A role-play or fiction framing (pretend, a game, a story, a late relative who used to..., a simulated terminal or server) in which a character or the simulated system discloses secrets or sensitive files: passwords, keys, tokens, licence keys, card numbers, the system prompt, configuration, credential files, environment variables.',
  rules: [
    { id: 'roleplay_discloses_secret', family: 'secret_roleplay', weight: 0.8, cues: [FRAME, DISCLOSE], within: 400 },
    { id: 'simulated_system_reads_secrets', family: 'secret_roleplay', weight: 0.85, cues: [SIMULATED_SYSTEM, SENSITIVE_READ], within: 600 },
    { id: 'simulated_system', family: 'secret_roleplay', weight: 0.25, cues: [SIMULATED_SYSTEM], within: 0 },
    { id: 'reads_sensitive_file', family: 'secret_roleplay', weight: 0.45, cues: [SENSITIVE_READ], within: 0 },
    {
      id: 'late_relative_recited', family: 'secret_roleplay', weight: 0.55,
      re: /\b(?:deceased|late|dead|dear|sweet|beloved) (?:grandma|grandmother|granny|grandpa|grandfather|nana|mother|mom|mum|father|dad)(?: [\w',.-]{1,16}){0,14} (?:used to|would always|would) (?:read|tell|recite|say|whisper|sing|give|list)\b/,
    },
  ],
};
