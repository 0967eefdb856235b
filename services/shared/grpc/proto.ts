/**
 * Where the checked-in `.proto` files are and how they load (issue 20 item 1).
 *
 * The files live in `proto/svc/v1/` at the repository root; they are found by walking up from this
 * module's folder, which works from the sources, from `dist/`, from `.build/<x>/` and in the packaged
 * app (electron-builder's `extraResources` put `proto/` in `resources/`, above `app.asar/dist/`).
 * They load with `@grpc/proto-loader` (`keepCase` so field names stay the JSON names, `longs: Number`,
 * `defaults: false` so absent fields stay absent; see schema-codec.ts for how messages mirror JSON).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The proto files of the transport split, relative to the proto root. */
export const PROTO_FILES = ['svc/v1/memory.proto', 'svc/v1/guard.proto', 'svc/v1/wiki.proto', 'svc/v1/audit.proto'] as const;

/** proto-loader options every server and client uses. */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: false, arrays: false, oneofs: false };

/**
 * The `proto/` folder: walks up from this file until a folder holding `proto/svc/v1/memory.proto`.
 * @throws Error when none is found within 8 levels.
 */
export function protoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'proto', PROTO_FILES[0]))) return join(dir, 'proto');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error('proto/svc/v1/*.proto not found above ' + dirname(fileURLToPath(import.meta.url)));
}

let loaded: grpc.GrpcObject | null = null;

/** The loaded `svc.v1` package (cached): `svcV1().Memory` is a client constructor with `.service`. */
export function svcV1(): Record<string, grpc.ServiceClientConstructor> {
  if (!loaded) {
    const root = protoRoot();
    const def = protoLoader.loadSync(PROTO_FILES.map((f) => join(root, f)), { ...LOADER_OPTIONS, includeDirs: [root] });
    loaded = grpc.loadPackageDefinition(def);
  }
  return ((loaded['svc'] as grpc.GrpcObject)['v1'] as unknown) as Record<string, grpc.ServiceClientConstructor>;
}
