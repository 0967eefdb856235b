/**
 * All entity recognisers behind one call: structured PII, street addresses, person names and
 * secrets, overlaps resolved (checksummed identifiers win over fuzzy ones). Pure: no I/O.
 */
import { findAddresses } from './addresses.js';
import { resolveOverlaps, type EntitySpan, type EntityType } from './entities.js';
import { findPersonNames } from './names.js';
import { findStructuredPii } from './pii-patterns.js';
import { findSecrets } from './secrets.js';

/** Options of `findEntities`. */
export interface FindEntitiesOptions {
  /** Entity types wanted (default: all). */
  types?: ReadonlySet<EntityType> | readonly EntityType[];
  /** Run the NLP-backed recognisers (names, addresses). Default true. */
  nlp?: boolean;
  /** Run compromise's full people() pass as extra name evidence. Default true. */
  nlpPeoplePass?: boolean;
}

/** Find entities of the wanted types in `text`, non-overlapping, sorted by start. */
export function findEntities(text: string, opts: FindEntitiesOptions = {}): EntitySpan[] {
  const wanted = opts.types ? new Set(opts.types) : null;
  const want = (t: EntityType) => !wanted || wanted.has(t);
  const spans: EntitySpan[] = [];
  if (want('SECRET')) spans.push(...findSecrets(text));
  spans.push(...findStructuredPii(text).filter((s) => want(s.type)));
  if (opts.nlp !== false) {
    if (want('STREET_ADDRESS')) spans.push(...findAddresses(text));
    if (want('PERSON')) spans.push(...findPersonNames(text, { nlpPass: opts.nlpPeoplePass !== false }));
  }
  return resolveOverlaps(spans);
}
