/**
 * File routes (spec "Code sandbox"; issue 12 "Files"): `POST /read`, `/read_binary`, `/write`,
 * `/grep`, `/glob`, all confined to the session's workspace. Errors: 400 `invalid_path` (absolute,
 * NUL, `..`), 400 `path_outside_workspace` (resolves outside in the container's view, symlinks
 * included), 404 `file_not_found`, 400 `not_a_file`, 413 `file_too_large`, 400 `invalid_pattern`,
 * and those of the run routes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  GlobRequestSchema, GlobResponseSchema, GrepRequestSchema, GrepResponseSchema, ReadBinaryRequestSchema, ReadBinaryResponseSchema,
  ReadRequestSchema, ReadResponseSchema, WriteRequestSchema, WriteResponseSchema,
} from '../contracts.js';
import type { Sandbox } from '../domain/sandbox.js';

/** Options of `fileRoutes`. */
export interface FileRoutesOptions { sandbox: Sandbox }

/** Register the file routes. */
export const fileRoutes: FastifyPluginAsyncTypebox<FileRoutesOptions> = async (app, { sandbox }) => {
  /** `POST /read` -> 200 `ReadResponse` (text lines `offset`..`offset+limit`). */
  app.post('/read', { schema: { body: ReadRequestSchema, response: { 200: ReadResponseSchema } } },
    async (req) => sandbox.read(requirePrincipal(req), req.body));

  /** `POST /read_binary` -> 200 `ReadBinaryResponse` (base64, MIME type, size, sha256). */
  app.post('/read_binary', { schema: { body: ReadBinaryRequestSchema, response: { 200: ReadBinaryResponseSchema } } },
    async (req) => sandbox.readBinary(requirePrincipal(req), req.body));

  /** `POST /write` -> 200 `WriteResponse` (folders created; `encoding` utf8 or base64). */
  app.post('/write', { schema: { body: WriteRequestSchema, response: { 200: WriteResponseSchema } } },
    async (req) => sandbox.write(requirePrincipal(req), req.body));

  /** `POST /grep` -> 200 `GrepResponse` (at most 1000 matches). */
  app.post('/grep', { schema: { body: GrepRequestSchema, response: { 200: GrepResponseSchema } } },
    async (req) => sandbox.grep(requirePrincipal(req), req.body));

  /** `POST /glob` -> 200 `GlobResponse` (sorted, at most 1000 paths). */
  app.post('/glob', { schema: { body: GlobRequestSchema, response: { 200: GlobResponseSchema } } },
    async (req) => sandbox.glob(requirePrincipal(req), req.body));
};
