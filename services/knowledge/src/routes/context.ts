/** What the knowledge route plugins share. */
import type { KnowledgeService } from '../domain/knowledge-service.js';
import type { KnowledgeConfig } from '../contracts.js';

/** Dependencies of the route plugins. */
export interface KnowledgeContext { cfg: KnowledgeConfig; svc: KnowledgeService }

/** Path parameter schema of a document id. */
export const DOC_PARAM = { type: 'object', required: ['document_id'], properties: { document_id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

/** `tenant_id` is accepted everywhere and ignored (the principal's pinned tenant rules). */
export const TENANT_QUERY = { type: 'object', properties: { tenant_id: { type: 'string', maxLength: 256 } } } as const;
