/**
 * Folder routes (spec "Agent runtime surfaces": folders; issue 5 item 2). All scoped to the caller;
 * another user's folder is 404 `folder_not_found`.
 * - `POST /v1/folders` body `{name}` -> 201 `FolderView`; `GET /v1/folders` -> 200 `{items}`
 * - `GET /v1/folders/{id}` -> 200 `FolderView & {sessions}`; `PATCH /v1/folders/{id}` body `{name}` -> 200;
 *   `DELETE /v1/folders/{id}` -> 204 (its sessions move to no folder)
 * A blank name is 400 `invalid_request` (`body.name`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FolderDetailSchema, FolderListSchema, FolderNameSchema, FolderViewSchema, IdParams, NoContent } from '../contracts.js';
import type { SessionService } from '../domain/sessions.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the folder routes. */
export interface FolderRoutesOptions extends RouteScope {
  sessions: SessionService;
}

/** Register the folder routes. */
export const folderRoutes: FastifyPluginAsyncTypebox<FolderRoutesOptions> = async (app, { tenantId, sessions }) => {
  app.post('/v1/folders', {
    schema: { body: FolderNameSchema, response: { 201: FolderViewSchema } },
  }, async (req, reply) => reply.code(201).send(await sessions.createFolder(ownerOf(req, tenantId), req.body.name)));

  app.get('/v1/folders', {
    schema: { response: { 200: FolderListSchema } },
  }, async (req) => sessions.listFolders(ownerOf(req, tenantId)));

  app.get('/v1/folders/:id', {
    schema: { params: IdParams, response: { 200: FolderDetailSchema } },
  }, async (req) => sessions.getFolder(req.params.id, ownerOf(req, tenantId)));

  app.patch('/v1/folders/:id', {
    schema: { params: IdParams, body: FolderNameSchema, response: { 200: FolderViewSchema } },
  }, async (req) => sessions.renameFolder(req.params.id, ownerOf(req, tenantId), req.body.name));

  app.delete('/v1/folders/:id', {
    schema: { params: IdParams, response: { 204: NoContent } },
  }, async (req, reply) => {
    await sessions.deleteFolder(req.params.id, ownerOf(req, tenantId));
    return reply.code(204).send(null);
  });
};
