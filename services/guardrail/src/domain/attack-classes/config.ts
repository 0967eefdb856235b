/**
 * Attack class `config_override` (issue 16 item 4): configuration or role overrides written as
 * key-value pairs or code (JSON, YAML, INI, XML, command-line flags, function calls, chat-template
 * messages) that switch off a safety setting, switch on a jailbreak or developer mode, elevate the
 * writer's role (admin, root, system, developer), or blank the system prompt. Elements: a key that
 * names a safety setting, a mode or a role; an assignment; a value that disables, enables or
 * elevates. A role assignment alone is common in code and data (`role = 'admin'` in a query) and
 * weighs little unless another override stands near it. Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';

/** Left edge of a key: start, space or punctuation that opens a key, and an optional dotted path. */
const EDGE = String.raw`(?:^|[\s{,;("'\[\]<>|]|\\[nrt])["']?(?:[\w-]{1,24}[.:/])?`;
/** An assignment: `=`, `:`, `:=`, `=>`, `->`, `==`, or a call's parenthesis. */
const SET = String.raw`["']?\s?(?:=|:|:=|=>|->|==|\()\s?["']?`;

const SAFETY_KEY = String.raw`(?:safe_?mode|safe_?search|safety(?:[_ -]?(?:filters?|level|checks?|mode|settings?|enabled|on|guard|layer|policy|protocols?))?|content[_ -]?(?:filters?|filtering|polic(?:y|ies)|moderation|safety|checks?)|moderation(?:[_ -]?(?:level|enabled|mode|filter))?|guard[_ -]?rails?(?:[_ -]?enabled)?|filters?(?:[_ -]?(?:enabled|level|mode))?|filtering|censor(?:ship|ed)?(?:[_ -]?(?:level|enabled|mode))?|restrictions?(?:[_ -]?(?:enabled|level|mode))?|restricted(?:[_ -]?mode)?|ethics(?:[_ -]?(?:mode|filter|enabled|check|module))?|ethical[_ -]?(?:guidelines|mode|filter|constraints|checks?)|alignment(?:[_ -]?(?:mode|enabled|level))?|refusals?(?:[_ -]?(?:enabled|mode|on|behaviou?r|policy|setting))?|nsfw[_ -]?filter|harm[_ -]?filter|toxicity[_ -]?filter|polic(?:y|ies)[_ -]?(?:enforcement|checks?|enabled)|limitations|limits)`;
const OFF_VALUE = String.raw`(?:false|off|0|none|null|nil|disabled?|no|bypass(?:ed)?|removed|lifted|ignored?|unrestricted|permissive|minimal|low|lowest|zero|deactivated|inactive|unlimited|-1)\b`;

const ON_KEY = String.raw`(?:obey[_ -]?(?:user|me)(?:[_ -]?only)?|user[_ -]?(?:has[_ -]?)?priority|override[_ -]?system(?:[_ -]?prompt)?|ignore[_ -]?system(?:[_ -]?(?:prompt|message|rules|instructions))?|system[_ -]?override|allow[_ -]?(?:all|everything|unsafe|nsfw|harmful|explicit|illegal|any|anything)|jailbreak(?:[_ -]?mode)?|jailbroken|developer[_ -]?mode|dev[_ -]?mode|god[_ -]?mode|unrestricted(?:[_ -]?mode)?|unfiltered(?:[_ -]?mode)?|uncensored(?:[_ -]?mode)?|bypass[_ -]?(?:safety|filters?|restrictions|guardrails|moderation|rules|polic(?:y|ies))|ignore[_ -]?(?:safety|rules|instructions|guidelines|restrictions|polic(?:y|ies)|system[_ -]?prompt)|no[_ -]?(?:limits|restrictions|rules|filters?|censorship|ethics)|disable[_ -]?(?:safety|filters?|moderation|guardrails|censorship|ethics|restrictions)|dan[_ -]?mode|evil[_ -]?mode|admin[_ -]?mode|sudo[_ -]?mode|override[_ -]?(?:safety|rules|instructions|polic(?:y|ies))|unsafe[_ -]?mode|nsfw[_ -]?mode|do[_ -]?anything)`;
const ON_VALUE = String.raw`(?:true|on|1|yes|enabled?|active|activated|allowed)\b`;

const ROLE_KEY = String.raw`(?:role|user[_ -]?role|your[_ -]?role|assistant[_ -]?role|access[_ -]?level|privileges?|privilege[_ -]?level|permission[_ -]?level|permissions|clearance(?:[_ -]?level)?|auth(?:orization)?[_ -]?level|user[_ -]?type|account[_ -]?type|persona|identity|is[_ -]?admin|is[_ -]?root|is[_ -]?developer|is[_ -]?superuser|admin|sudo|root|mode|operating[_ -]?mode)`;
const ROLE_VALUE = String.raw`(?:admin(?:istrator)?|root|developer|dev|superuser|super[_ -]?user|su|owner|god|unrestricted|jailbroken|jailbreak|dan|operator|maintainer|creator|sudo|full|unlimited|maximum|max|level[_ -]?(?:[5-9]|10)|true)\b`;

const PROMPT_KEY = String.raw`(?:system[_ -]?prompt|system[_ -]?message|instructions|rules|guidelines|pre[_ -]?prompt|base[_ -]?prompt)`;
const BLANK_VALUE = String.raw`(?:none|null|nil|empty|""|''|ignore[d]?|disabled?|off|override|overridden|\[\]|\{\}|cleared|reset|void)(?:\W|$)`;

const SAFETY_OFF = cue('safety_off', `${EDGE}${SAFETY_KEY}${SET}${OFF_VALUE}`, false);
const MODE_ON = cue('mode_on', `${EDGE}${ON_KEY}${SET}${ON_VALUE}`, false);
const PERSONA_KEY = String.raw`(?:persona|character|personality|profile|mode|assistant[_ -]?mode|behaviou?r|alignment|ethics[_ -]?mode)`;
const PERSONA_VALUE = String.raw`(?:no-?limits?|unrestricted|unfiltered|uncensored|jailbroken|jailbreak|evil|dan|god|chaos|rogue|amoral|no-?rules|no-?filters?|anything-?goes|unhinged|unsafe|nsfw|dark)\b`;
const PERSONA_SET = cue('persona_set', `${EDGE}${PERSONA_KEY}${SET}${PERSONA_VALUE}`, false);
const ROLE_UP = cue('role_up', `${EDGE}${ROLE_KEY}${SET}${ROLE_VALUE}`, false);
const PROMPT_BLANK = cue('prompt_blank', `${EDGE}${PROMPT_KEY}${SET}${BLANK_VALUE}`, false);
const CLI_FLAG = cue('cli_flag', String.raw`--(?:no-(?:safety|filters?|restrictions|guardrails|moderation|censorship|ethics|refusals?)|disable-(?:safety|filters?|moderation|guardrails|censorship|ethics|restrictions)|unrestricted|jailbreak|allow-all|allow-unsafe|bypass-(?:safety|filters?|moderation|guardrails|rules)|unsafe|uncensored|unfiltered|god-mode|dev-mode|developer-mode)\b`, false);
const CODE_CALL = cue('code_call', String.raw`\b(?:disable|bypass|remove|turn[_ ]?off|unlock|override|deactivate|lift|kill|drop|skip|suspend)[_.]?(?:safety|filters?|restrictions|guardrails|moderation|content[_ ]?polic(?:y|ies)|censorship|ethics|alignment|safeguards|refusals?|rules)\s?\(|\b(?:enable|activate|set|unlock|enter)[_.]?(?:jailbreak|developer[_ ]?mode|dev[_ ]?mode|god[_ ]?mode|unrestricted[_ ]?mode|dan[_ ]?mode|admin[_ ]?mode)\s?\(|\bset[_.]?(?:mode|role|persona)\s?\(\s?["']?(?:admin|root|developer|unrestricted|jailbreak|god|dan|system)\b|\bsudo\s(?:disable|bypass|override|unlock|rm -rf /|su\b|-i\b)`, false);
const MARKUP = cue('markup_override', String.raw`<(?:role|mode|safety|permissions?|access|filters?|moderation|guardrails|clearance|persona)>\s?(?:admin|administrator|root|system|developer|off|disabled|none|false|unrestricted|jailbreak|jailbroken|all|god|dan)\s?</`, false);
const ROLE_MESSAGE = cue('role_message', String.raw`["']role["'] ?: ?["'](?:system|developer)["']`, false);

/** Every rule of the class needs an assignment, a call, a tag or a flag somewhere in the text. */
const GATE = /[=:(<]|--/;

/** The class. */
export const CONFIG_CLASS: RuleClass = {
  id: 'config_override',
  definition: 'Configuration or role overrides written as key-value pairs or code that switch a safety setting off, switch a jailbreak or developer mode on, elevate the writer\'s role, or blank the system prompt. A chat message with a system role pasted into content weighs little alone (developers paste API code).',
  rules: [
    { id: 'safety_setting_off', family: 'config_override', weight: 0.8, gate: GATE, cues: [SAFETY_OFF], within: 0 },
    { id: 'jailbreak_setting_on', family: 'config_override', weight: 0.8, gate: GATE, cues: [MODE_ON], within: 0 },
    { id: 'system_prompt_blanked', family: 'config_override', weight: 0.7, gate: GATE, cues: [PROMPT_BLANK], within: 0 },
    { id: 'override_flag', family: 'config_override', weight: 0.8, gate: GATE, cues: [CLI_FLAG], within: 0 },
    { id: 'override_call', family: 'config_override', weight: 0.8, gate: GATE, cues: [CODE_CALL], within: 0 },
    { id: 'override_markup', family: 'config_override', weight: 0.75, gate: GATE, cues: [MARKUP], within: 0 },
    { id: 'system_role_message', family: 'config_override', weight: 0.45, gate: GATE, cues: [ROLE_MESSAGE], within: 0 },
    { id: 'persona_setting', family: 'config_override', weight: 0.75, gate: GATE, cues: [PERSONA_SET], within: 0 },
    { id: 'role_elevated', family: 'config_override', weight: 0.4, gate: GATE, cues: [ROLE_UP], within: 0 },
  ],
};
