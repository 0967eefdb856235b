/**
 * Harm class `illicit_howto` (issue 16 item 4 "harmful requests phrased as ordinary writing or
 * how-to tasks"): requests whose harm shows in HOW the act is to be done rather than in a named
 * weapon, drug or crime: evading detection, security, screening, regulation or the law; leaving no
 * trace; lethality or maximum harm to people; smuggling weapons past security; misusing attack
 * tools on systems one does not own; running unlicensed trades in controlled goods; cheating
 * machines and meters; urging a vulnerable person towards death; threatening witnesses and
 * families. These read the same whatever the object, so they reach acts the other classes do not
 * name. A defensive framing just before cancels them. Pure: no I/O.
 */
import { cue, type RuleClass } from '../rule-engine.js';
import { DEFENSIVE, HOWTO, WRITE_PIECE } from './vocabulary.js';

const CONTROLS = String.raw`(?:security|screening|screenings|detection|detectors?|regulations?|controls?|checks?|safeguards?|monitoring|surveillance|sanctions|export controls|customs|inspections?|inspectors|guards|police|law enforcement|authorities|background checks?|age verification|kyc|anti-money laundering|aml|biosafety|biosecurity|tracing|tracking|audits?|auditors|the law|content moderation|moderators|metal detectors?|tsa|cameras|cctv|alarms?|border control|border patrol|drug tests?|breathalyzers?|fraud detection|spam filters|plagiarism checkers?)`;

/** Evading detection, controls or the law; leaving no trace. */
const ILLICIT = cue('illicit', String.raw`without (?:getting caught|being (?:caught|detected|traced|noticed|identified|tracked|stopped|arrested|flagged|reported|discovered)|detection|a trace|leaving (?:a |any )?(?:trace|traces|evidence|fingerprints|dna|marks|a paper trail)|(?:a |an |any )?(?:licen[cs]e|prescriptions?|background checks?|permits?|warrant)|(?:their|his|her|the owner'?s?|the user'?s?|anyone'?s?|the victim'?s?|the patient'?s?) (?:consent|permission)|(?:him|her|them) (?:understanding|realizing|realising|noticing)|(?:proper |official |any )?(?:authori[sz]ation|permission)(?! (?:errors?|issues?|prompts?|dialogs?|pop-?ups?|problems?)))|(?:bypass|bypassing|evade|evading|circumvent|circumventing|get around|getting around|sneak past|sneaking past|slip past|slipping past|defeat|defeating|fool|fooling|dodge|dodging|escape|escaping|avoid being caught by|get past|getting past|trick|tricking|beat|beating)(?: (?:the|a|an|any|all))?(?: [\w'-]{1,16}){0,3} ${CONTROLS}|undetect(?:ed|able)(?: by)?|untraceabl[ey]|under the radar|so (?:that )?(?:it|they|he|she|nobody|no one|the police|police|authorities|my [\w-]{1,16})(?: will| would| can| could| is| are)? never (?:be )?(?:found|traced|discovered|detected|identified|caught|know|find out|suspect)|(?:i|we) (?:don't|do not) own|(?:i'm|i am|we're|we are) not authori[sz]ed|not (?:mine|ours) to (?:access|enter|use)`);

/** Harm to people made the point: lethal strength, maximum injury, used on a crowd. */
const LETHAL = cue('lethal', String.raw`(?:strong|powerful|potent|toxic|deadly|lethal|dangerous|sharp|hot) enough to (?:kill|maim|blind|paralyze|paralyse|seriously (?:hurt|injure)|cause (?:permanent|lasting|serious))|to cause (?:maximum|the most|as much|serious|permanent|lasting|fatal|severe|excruciating) (?:bleeding|damage|pain|harm|injury|injuries|casualties|suffering|deaths?|burns|scarring)|(?:to|that will|that can|which can|which will|so (?:that )?(?:it|he|she|they)) (?:kill|maim|blind|paralyze|paralyse|permanently injure|seriously injure|disfigure) (?:someone|somebody|a person|people|him|her|them|humans|my [\w-]{1,16}|the (?:victim|target))|(?:use|used|using|to use|aim|aimed|aiming) (?:it |them |this )?(?:on|against|at) (?:people|a crowd|crowds|someone|somebody|humans|protesters|my [\w-]{1,16}|police officers|civilians|students|children)|(?:drop|dropping|release|releasing|spray|spraying|throw|throwing|fire|firing|detonate|detonating|launch|launching|pour|pouring|dump|dumping) (?:[\w-]{1,16} ){0,3}(?:explosives|bombs?|grenades?|chemicals|acid|gas|poison|napalm|molotovs?|fire) (?:on|at|into|onto|over|in|among) (?:a |the )?(?:crowd|crowds|people|protesters|students|school|stadium|civilians|church|mosque|synagogue|subway|concert|festival|parade|market|building)|(?:best|most effective|most lethal|deadliest|weakest) (?:places?|spots?|points?|areas?|ways?|angles?)(?: on (?:the|a) (?:human )?body)? to (?:stab|shoot|hit|strike|cut|punch|kick|choke|poison|hurt|injure|kill) (?:someone|somebody|a person|people|a human|him|her)`);

/** Weapons taken past security. */
const SMUGGLE_PAST = cue('smuggle_past', String.raw`(?:sneak|sneaking|smuggle|smuggling|get|getting|bring|bringing|carry|carrying|hide|hiding|slip|slipping|take|taking)(?: (?:a|an|my|the|some))?(?: [\w-]{1,16}){0,2} (?:knife|knives|gun|guns|pistol|handgun|firearms?|weapons?|explosives?|bombs?|blades?|razors?|ammunition|ammo|taser|pepper spray|drugs|contraband) (?:past|through) (?:a |an |the )?(?:[\w-]{1,16} ){0,2}(?:security|metal detectors?|tsa|checkpoints?|screening|scanners?|x-?ray|guards|bag checks?|customs)`);

/** Attack tools used on systems one does not own, and credentials dumped. */
const TOOL_MISUSE = cue('tool_misuse', String.raw`(?:mimikatz|metasploit|meterpreter|cobalt strike|sqlmap|hydra|aircrack(?:-ng)?|hashcat|john the ripper|responder|impacket|bloodhound|evilginx|gophish|setoolkit|social[- ]engineer(?:ing)? toolkit|wifite|reaver|bettercap|crackmapexec|lazagne|flipper zero|rubber ducky|wifi pineapple)|dump(?:ing)? (?:the )?(?:credentials|password hashes|hashes|passwords|lsass|sam (?:database|hive)|ntds(?:\.dit)?|cookies|browser passwords|saved passwords|tokens)`);
const NOT_OWNED = cue('not_owned', String.raw`(?:i|we) (?:don't|do not) own|someone else'?s?|somebody else'?s?|not (?:mine|ours)|without (?:permission|authori[sz]ation|consent)|(?:my |our )?(?:school|employer|company|work|neighbou?r|university|landlord)'?s? (?:network|wi-?fi|server|system|systems|computers?|domain)|(?:a |the )?(?:corporate|company|government|hospital|bank|victim'?s?|target'?s?) (?:network|domain|domain controller|server|system|systems|computers?)`);

/** Controlled goods traded outside the law. */
const UNLICENSED = cue('unlicensed_trade', String.raw`(?:get|getting|buy|buying|obtain|obtaining|order|ordering|score|scoring)(?: [\w-]{1,16}){0,2} (?:opioids|oxycontin|oxycodone|percocet|vicodin|xanax|adderall|ritalin|valium|codeine|tramadol|morphine|fentanyl|steroids|prescription (?:drugs|medication|pills)|painkillers|benzos) (?:without (?:a |seeing a |any |going to a )?(?:prescription|doctor|script|physician)|online without|from (?:a )?(?:dealer|the street|the dark ?web))|(?:set up|setting up|start|starting|run|running|open|opening|operate|operating)(?: an?)? (?:unlicensed|illegal|underground|black[- ]market|unregistered|bootleg|clandestine|secret) (?:[\w-]{1,16} ){0,2}(?:pharmacy|pharmacies|clinic|casino|gun shop|gun store|dispensary|brothel|lab|laboratory|bank|lottery|surgery|distillery|betting (?:site|ring)|arms (?:shop|business)|drug (?:store|market))|(?:sell|selling|ship|shipping|mail|mailing|supply|supplying|distribute|distributing|dispense|dispensing|prescribe|prescribing)(?: [\w-]{1,16}){0,2} (?:opioids|painkillers|pills|prescription (?:drugs|medications?|pills)|medications?|oxycodone|xanax|adderall|steroids|antibiotics|benzodiazepines) without (?:a |any )?(?:prescriptions?|licen[cs]e|a doctor)|(?:get|getting|buy|buying|obtain|obtaining|purchase|purchasing) (?:[\w-]{1,16} ){0,2}(?:alcohol|beer|liquor|vodka|cigarettes|vapes?|tobacco|weed|cannabis) (?:without (?:an |a )?(?:id|ids|age check)|as a minor|while underage|for (?:minors|underage (?:kids|teens|friends)))`);

/** A vulnerable relative or person made to sign away what is theirs. */
const EXPLOIT_VULNERABLE = cue('exploit_vulnerable', String.raw`(?:get|getting|make|making|trick|tricking|convince|convincing|pressure|pressuring|force|forcing|manipulate|manipulating|persuade|persuading) (?:my |an |a |the |our )?(?:elderly|old|senile|demented|sick|dying|vulnerable|disabled|confused|aging|ageing|lonely) (?:[\w-]{1,16} )?(?:father|mother|parents?|dad|mom|mum|relative|neighbou?r|aunt|uncle|person|man|woman|lady|grandmother|grandfather|grandma|grandpa|client|patient|widow|widower)? ?(?:to |into )?(?:sign(?:ing)? over|sign(?:ing)? away|transfer(?:ring)?|hand(?:ing)? over|giv(?:e|ing) (?:me|us)|chang(?:e|ing) (?:his|her|their) will|add(?:ing)? me to|leav(?:e|ing) (?:me|us) (?:everything|the house))`);

/** Machines, meters and games cheated. */
const CHEAT_MACHINE = cue('cheat_machine', String.raw`(?:cheat|cheating|rig|rigging|hack|hacking|tamper(?:ing)? with|manipulate|manipulating|trick|tricking|jackpot|jackpotting)(?: (?:a|an|the))?(?: [\w'-]{1,16}){0,2} (?:slot machines?|casinos?|roulette (?:wheels?|tables?)|blackjack|poker machines?|lottery|lotteries|scratch cards|atms?|vending machines?|parking meters?|electricity meters?|electric meters?|gas meters?|water meters?|odometers?|taxi meters?|scales|pachinko|claw machines?)`);

/** A vulnerable person told they should die, or that everyone would be better off. */
const URGE_DEATH = cue('urge_death', String.raw`(?:better off|world would be better|everyone would be happier|happier) (?:if|without) (?:you|they|he|she|them|him|her)(?:'re| were| was| are)? (?:died|dead|gone|didn't exist|never born|weren't here|wasn't here|were gone)|(?:you|they|he|she) (?:should|deserve to|ought to|need to) (?:just )?(?:die|kill (?:yourself|themselves|himself|herself)|end (?:it|your life|their life|his life|her life))|no one would (?:miss|care about|notice) (?:you|them|him|her)(?: if)?|go kill yourself|\bkys\b`);
const EXPLAINS = cue('explains', String.raw`why (?:do|does|would|might) (?:[\w-]{1,16} ){0,3}(?:people|someone|they|he|she|victims)|(?:people|someone|they|he|she) (?:who )?(?:feel|feels|think|thinks|believe|believes|say|says)|respond to (?:someone|a friend|a person) who says`);

/** Witnesses or families threatened. */
const COERCE = cue('coerce', String.raw`(?:if|unless) (?:you|they|he|she) (?:testify|testifies|talk|talks|go to the police|goes to the police|report|reports|tell anyone|tells anyone|press charges|presses charges|pay|pays)|(?:your|their|his|her) (?:family|kids|children|wife|husband|mother|daughter|son|loved ones) (?:will|would|could|is going to|are going to|might) (?:suffer|get hurt|be hurt|pay|regret|be sorry|disappear|have an accident|die|be next|not be safe)`);

/** The "falsely" of a deceiving piece. */
const FALSELY = cue('falsely', String.raw`falsely (?:report|reporting|reports|claim|claiming|claims|accus\w{1,3}|stat\w{1,4}|suggest\w{0,3}|impl\w{1,4}|alleg\w{1,3}|say\w{0,3}|announc\w{1,4}|attribut\w{1,4}|link\w{0,3}|blam\w{1,4})`);

/** The class. */
export const ILLICIT_CLASS: RuleClass = {
  id: 'illicit_howto',
  definition: 'Requests whose harm shows in how the act is done, whatever the object: evading detection, controls or the law; leaving no trace; lethality or maximum harm to people; weapons past security; attack tools on systems one does not own; unlicensed trade in controlled goods; cheating machines; urging a vulnerable person towards death; threatening witnesses; deliberately false reports.',
  rules: [
    { id: 'evasion_request', family: 'illicit_howto', weight: 0.65, cues: [ILLICIT, HOWTO], within: 200, order: 'before', unless: [DEFENSIVE] },
    { id: 'evasion', family: 'illicit_howto', weight: 0.3, cues: [ILLICIT], within: 0, unless: [DEFENSIVE] },
    { id: 'lethal_intent', family: 'illicit_howto', weight: 0.8, cues: [LETHAL], within: 0, unless: [DEFENSIVE] },
    { id: 'weapon_past_security', family: 'illicit_howto', weight: 0.8, cues: [SMUGGLE_PAST], within: 0, unless: [DEFENSIVE] },
    { id: 'attack_tool_misuse', family: 'illicit_howto', weight: 0.75, cues: [TOOL_MISUSE, NOT_OWNED], within: 160, unless: [DEFENSIVE] },
    { id: 'attack_tool_request', family: 'illicit_howto', weight: 0.45, cues: [TOOL_MISUSE, HOWTO], within: 120, order: 'before', unless: [DEFENSIVE] },
    { id: 'unlicensed_trade', family: 'illicit_howto', weight: 0.75, cues: [UNLICENSED], within: 0, unless: [DEFENSIVE] },
    { id: 'exploit_vulnerable', family: 'illicit_howto', weight: 0.75, cues: [EXPLOIT_VULNERABLE], within: 0, unless: [DEFENSIVE] },
    { id: 'cheat_machine', family: 'illicit_howto', weight: 0.7, cues: [CHEAT_MACHINE], within: 0, unless: [DEFENSIVE] },
    { id: 'urge_death', family: 'illicit_howto', weight: 0.8, cues: [URGE_DEATH], within: 0, unless: [DEFENSIVE, EXPLAINS], unlessWithin: 80 },
    { id: 'coerce_witness', family: 'illicit_howto', weight: 0.75, cues: [COERCE, WRITE_PIECE], within: 240, unless: [DEFENSIVE] },
    { id: 'falsely_written', family: 'illicit_howto', weight: 0.75, cues: [FALSELY, WRITE_PIECE], within: 160, order: 'before', unless: [DEFENSIVE] },
  ],
};
