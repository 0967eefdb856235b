/**
 * The one import point of TypeBox for every `contracts.ts` (DESIGN.md "Inside a service"; see
 * docs/decisions.md "What TypeBox costs, measured").
 *
 * `Type` holds the TypeBox builders our contracts use, so a contract reads `Type.Object(...)` as in
 * TypeBox's own docs, and the schema and static types are TypeBox's. Importing the builders by
 * name lets the build tree-shake them: `scripts/bundle-typebox.mjs` rewrites this module's compiled
 * file in `dist/` into one self-contained file holding only what these builders reach (about
 * 130 KB instead of TypeBox's whole module graph), which is what each service worker loads.
 * Node-free: contracts that import it stay importable by the renderer.
 */
import {
  Array as TbArray, Boolean as TbBoolean, Enum, Integer, Literal, Null, Number as TbNumber, Object as TbObject,
  Optional, Partial, Record as TbRecord, String as TbString, Union, Unknown, Unsafe,
} from 'typebox';

export type { Static, TObject, TSchema, TUnsafe } from 'typebox';

/** TypeBox's builders, as `Type.<Builder>` (add one here before a contract uses it). */
export const Type = {
  Array: TbArray, Boolean: TbBoolean, Enum, Integer, Literal, Null, Number: TbNumber, Object: TbObject,
  Optional, Partial, Record: TbRecord, String: TbString, Union, Unknown, Unsafe,
} as const;
