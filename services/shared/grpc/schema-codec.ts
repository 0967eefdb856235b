/**
 * JSON bodies <-> protobuf messages, guided by the route's TypeBox (JSON Schema) schema (issue 20
 * item 1: "messages mirroring the JSON bodies exactly so both transports answer the same").
 *
 * One rule set serves three uses: `protoMessage` writes the `.proto` message of a schema (the
 * checked-in files under proto/ are its output, test/unit/grpc/protos-in-sync.test.ts keeps them so),
 * `toMessage` turns a JSON value into the plain object proto-loader encodes, and `fromMessage` turns a
 * decoded message back into the JSON value the HTTP route would have seen or answered.
 *
 * Rules, per property of an object schema (field numbers follow the schema's property order):
 * - string / number / integer / boolean -> `string` / `double` / `int64` / `bool`; enums are strings;
 *   `optional` whenever the property is optional or nullable (proto3 presence keeps `false`, `0`, `""`
 *   apart from absent; a required nullable field that is absent decodes as `null`);
 * - an object with properties and no `additionalProperties` -> a nested message;
 * - a required, non-null array of scalars or objects -> `repeated`;
 * - anything else (free-form objects, `unknown`, unions, optional or nullable arrays, and properties
 *   both optional and nullable, whose absent / null / value must stay three answers) -> `optional
 *   string` holding the JSON text (e.g. audit's `detail`, memory's `messages`, `why_stored`).
 * So every JSON body the schema accepts comes back as it was sent (values, nulls, absences, key order).
 */

/** A JSON Schema node as TypeBox emits it (only what the codec reads). */
export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  additionalProperties?: unknown;
  enum?: unknown[];
  const?: unknown;
}

type Scalar = 'string' | 'double' | 'int64' | 'bool';
/** How one schema node travels. */
export type Kind =
  | { k: 'scalar'; proto: Scalar; nullable: boolean }
  | { k: 'message'; schema: SchemaNode; nullable: boolean }
  | { k: 'repeated'; item: Kind; nullable: boolean }
  | { k: 'json'; nullable: boolean };

const SCALARS: Record<string, Scalar> = { string: 'string', number: 'double', integer: 'int64', boolean: 'bool' };

/** The kind of `s` (see the module rules). */
export function kindOf(s: SchemaNode): Kind {
  let node = s;
  let nullable = false;
  if (Array.isArray(node.anyOf)) {
    const rest = node.anyOf.filter((b) => b.type !== 'null');
    nullable = rest.length < node.anyOf.length;
    if (rest.length !== 1) return { k: 'json', nullable };
    node = rest[0]!;
  }
  let type = node.type;
  if (Array.isArray(type)) {
    const rest = type.filter((t) => t !== 'null');
    nullable = nullable || rest.length < type.length;
    if (rest.length !== 1) return { k: 'json', nullable };
    type = rest[0];
  }
  if (type === undefined && node.const !== undefined) type = typeof node.const === 'boolean' ? 'boolean' : typeof node.const === 'number' ? 'number' : 'string';
  if (type === undefined && Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string')) type = 'string';
  if (typeof type === 'string' && SCALARS[type]) return { k: 'scalar', proto: SCALARS[type]!, nullable };
  if (type === 'object' && node.properties && Object.keys(node.properties).length > 0
    && (node.additionalProperties === undefined || node.additionalProperties === false)) return { k: 'message', schema: node, nullable };
  if (type === 'array' && node.items) {
    const item = kindOf(node.items);
    if (item.nullable || item.k === 'repeated' || item.k === 'json') return { k: 'json', nullable };
    return { k: 'repeated', item, nullable };
  }
  return { k: 'json', nullable };
}

/** The kind of property `name` of object `s`, with arrays that may be absent or null carried as JSON. */
function fieldKind(s: SchemaNode, name: string): { kind: Kind; required: boolean } {
  const required = (s.required ?? []).includes(name);
  let kind = kindOf(s.properties![name]!);
  if (kind.k === 'repeated' && (!required || kind.nullable)) kind = { k: 'json', nullable: kind.nullable };
  // Optional and nullable: absent, null and a value are three answers; JSON text keeps them apart.
  if (!required && kind.nullable) kind = { k: 'json', nullable: true };
  return { kind, required };
}

const pascal = (name: string): string => name.split(/[_-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('') || 'Field';

/**
 * The `.proto` text of message `name` for object schema `s`, nested messages declared inside it.
 * @param indent leading spaces.
 */
export function protoMessage(name: string, s: SchemaNode, indent = ''): string {
  const lines: string[] = [`${indent}message ${name} {`];
  let n = 0;
  for (const prop of Object.keys(s.properties ?? {})) {
    const { kind, required } = fieldKind(s, prop);
    n++;
    const presence = !required || kind.nullable;
    if (kind.k === 'scalar') lines.push(`${indent}  ${presence ? 'optional ' : ''}${kind.proto} ${prop} = ${n};`);
    else if (kind.k === 'json') lines.push(`${indent}  optional string ${prop} = ${n};  // JSON text`);
    else if (kind.k === 'message') {
      const sub = pascal(prop);
      lines.push(protoMessage(sub, kind.schema, `${indent}  `));
      lines.push(`${indent}  ${sub} ${prop} = ${n};`);
    } else {
      const item = kind.item;
      if (item.k === 'scalar') lines.push(`${indent}  repeated ${item.proto} ${prop} = ${n};`);
      else if (item.k === 'message') {
        const sub = `${pascal(prop)}Item`;
        lines.push(protoMessage(sub, item.schema, `${indent}  `));
        lines.push(`${indent}  repeated ${sub} ${prop} = ${n};`);
      }
    }
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

/** The object proto-loader encodes for JSON `value` of object schema `s` (null and undefined fields left out). */
export function toMessage(s: SchemaNode, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object') return out;
  const obj = value as Record<string, unknown>;
  for (const prop of Object.keys(s.properties ?? {})) {
    const v = obj[prop];
    if (v === undefined) continue;
    const { kind } = fieldKind(s, prop);
    // null travels only as JSON text; elsewhere absence means null (required nullable fields).
    if (v === null && kind.k !== 'json') continue;
    out[prop] = encode(kind, v);
  }
  return out;
}

function encode(kind: Kind, v: unknown): unknown {
  switch (kind.k) {
    case 'json': return JSON.stringify(v);
    case 'message': return toMessage(kind.schema, v);
    case 'repeated': return Array.isArray(v) ? v.map((x) => encode(kind.item, x)) : [];
    default: return v;
  }
}

/**
 * The JSON value of a decoded message `msg` (proto-loader `keepCase`, `longs: Number`, `defaults:
 * false`) of object schema `s`: absent required fields get their proto default (or null when nullable).
 */
export function fromMessage(s: SchemaNode, msg: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const obj = (msg ?? {}) as Record<string, unknown>;
  for (const prop of Object.keys(s.properties ?? {})) {
    const { kind, required } = fieldKind(s, prop);
    const v = obj[prop];
    if (v === undefined || v === null) {
      if (!required) continue;
      out[prop] = kind.nullable ? null : defaultOf(kind);
      continue;
    }
    out[prop] = decode(kind, v);
  }
  return out;
}

function decode(kind: Kind, v: unknown): unknown {
  switch (kind.k) {
    case 'json': return JSON.parse(v as string);
    case 'message': return fromMessage(kind.schema, v);
    case 'repeated': return Array.isArray(v) ? v.map((x) => decode(kind.item, x)) : [];
    case 'scalar': return kind.proto === 'int64' && typeof v !== 'number' ? Number(v) : v;
  }
}

function defaultOf(kind: Kind): unknown {
  switch (kind.k) {
    case 'scalar': return kind.proto === 'string' ? '' : kind.proto === 'bool' ? false : 0;
    case 'repeated': return [];
    case 'message': return fromMessage(kind.schema, {});
    default: return null;
  }
}

/** A request schema from a route's params, querystring and body schemas, in that order (GET routes carry params and query). */
export function mergeSchemas(...parts: Array<SchemaNode | undefined>): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  const required: string[] = [];
  for (const p of parts) {
    if (!p) continue;
    Object.assign(properties, p.properties ?? {});
    required.push(...(p.required ?? []));
  }
  return { type: 'object', properties, required };
}
