/**
 * The JSON body parser of every service (issue 11 item 4, "Bounded input everywhere"): fastify's
 * own `application/json` parser (secure-json-parse, with the app's prototype-poisoning settings)
 * behind a depth check. A body nested deeper than the limit is refused with 400 `json_too_deep`
 * after one linear scan of the raw text (json-depth.ts), before `JSON.parse`, schema validation or
 * any recursive domain code runs; a 100,000-deep body used to reach them and answer 500.
 *
 * The size limit stays fastify's `bodyLimit` (the service's, or the route's): 413
 * `payload_too_large` through the kit's error handler.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from './domain-error.js';
import { jsonNestingDepth } from './json-depth.js';

/**
 * Replace `app`'s `application/json` parser by the depth-checked one. Call on the root app before
 * routes are registered (child contexts copy the parsers they see).
 * @param maxDepth deepest nesting accepted (objects and arrays).
 */
export function useBoundedJsonParser(app: FastifyInstance, maxDepth: number): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (jsonNestingDepth(text, maxDepth) > maxDepth) {
      done(new DomainError('json_too_deep', `request body nests deeper than ${maxDepth} levels`, { extra: { max_depth: maxDepth } }), undefined);
      return;
    }
    parse(req, text, done);
  });
}
