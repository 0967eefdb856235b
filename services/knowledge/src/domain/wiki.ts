/**
 * The wiki (spec "Knowledge": wiki routes, "Wiki page"): Markdown pages by topic slug, private to
 * the writer unless the write says otherwise, read through the visibility table.
 */
import type { Principal } from '../../../shared/identity/principal.js';
import type { WikiPage, WikiPageSummary, WikiWriteRequest } from '../contracts.js';
import { invalidInput, knowledgeError, notFoundError } from './errors.js';
import type { AudienceStore, WikiRow, WikiStore } from './ports.js';
import { canReadWiki, cleanTags, resolveGovernance, type Visibility } from './visibility.js';

const TOPIC = /^[a-z0-9][a-z0-9._-]{0,127}$/;

function nowIso(): string { return new Date().toISOString(); }

function wikiView(w: WikiRow): WikiPage {
  return {
    topic: w.topic, title: w.title, summary: w.summary, tags: w.tags, content: w.content, owner_user_id: w.owner_user_id,
    visibility_mode: w.visibility_mode, audience_tags: w.audience_tags, user_grants: w.user_grants,
    created_by: w.created_by, updated_by: w.updated_by, created_at: w.created_at, updated_at: w.updated_at,
  };
}

/** Dependencies of the wiki. */
export interface WikiDeps {
  tenantId: string;
  wiki: WikiStore;
  audiences: AudienceStore;
  visibility: Visibility;
}

/** Wiki use cases. */
export class Wiki {
  constructor(private readonly d: WikiDeps) {}

  /**
   * Create or update a page (topic lower-cased). An update keeps owner and creation fields and,
   * for fields the body omits, the page's governance.
   * @throws DomainError `invalid_request` (topic not a slug), `wiki_topic_conflict` (409: the page
   *   belongs to someone else; the same answer whether or not the caller can read it), and those of `resolveGovernance`.
   */
  async write(p: Principal, body: WikiWriteRequest): Promise<{ page: WikiPage; created: boolean }> {
    const topic = body.topic.trim().toLowerCase();
    if (!TOPIC.test(topic)) throw invalidInput('topic must be a slug: letters, digits, . _ -', 'topic');
    const existing = await this.d.wiki.get(this.d.tenantId, topic);
    const v = await this.d.visibility.viewerOf(p);
    if (existing && !(v.admin || existing.owner_user_id === p.id)) {
      // Same answer whether or not the caller can read the page: nothing about it leaks.
      throw knowledgeError('wiki_topic_conflict', `the topic "${topic}" is taken by a page you cannot change; choose another topic`);
    }
    const g = resolveGovernance(p, {
      visibility_mode: body.visibility_mode ?? existing?.visibility_mode ?? 'private',
      audience_tags: body.audience_tags ?? existing?.audience_tags, user_grants: body.user_grants ?? existing?.user_grants,
      confirm_tenant_wide: body.confirm_tenant_wide ?? (existing?.visibility_mode === 'shared' && existing.audience_tags.length === 0),
    });
    const now = nowIso();
    await this.d.audiences.ensure(this.d.tenantId, g.audiences, now);
    const row: WikiRow = {
      tenant_id: this.d.tenantId, topic, title: body.title.trim().slice(0, 500), summary: (body.summary ?? '').slice(0, 4000),
      tags: cleanTags(body.tags, 'tags'), content: body.content, owner_user_id: existing?.owner_user_id ?? p.id,
      visibility_mode: g.visibility, audience_tags: g.audiences, user_grants: g.grants,
      created_by: existing?.created_by ?? p.id, updated_by: p.id, created_at: existing?.created_at ?? now, updated_at: now,
    };
    await this.d.wiki.upsert(row);
    return { page: wikiView(row), created: !existing };
  }

  /** A page the caller may read. @throws DomainError `not_found` (absent and invisible answer the same). */
  async read(p: Principal, topic: string): Promise<WikiPage> {
    const w = await this.d.wiki.get(this.d.tenantId, topic.toLowerCase());
    if (!w || !canReadWiki(await this.d.visibility.viewerOf(p), w)) throw notFoundError(`no wiki page ${topic}`);
    return wikiView(w);
  }

  /** Pages the caller may read, by topic, without their content. */
  async list(p: Principal): Promise<{ items: WikiPageSummary[] }> {
    const v = await this.d.visibility.viewerOf(p);
    return { items: (await this.d.wiki.list(this.d.tenantId)).filter((w) => canReadWiki(v, w)).map((w) => { const { content: _c, ...rest } = wikiView(w); return rest; }) };
  }

  /** Delete a page (owner or admin). @throws DomainError `not_found` when not readable, `not_owner` (403) when readable only. */
  async delete(p: Principal, topic: string): Promise<void> {
    const w = await this.d.wiki.get(this.d.tenantId, topic.toLowerCase());
    const v = await this.d.visibility.viewerOf(p);
    if (!w || !canReadWiki(v, w)) throw notFoundError(`no wiki page ${topic}`);
    if (!v.admin && w.owner_user_id !== p.id) throw knowledgeError('not_owner', 'only the owner or an admin may delete this page');
    await this.d.wiki.delete(this.d.tenantId, w.topic);
  }
}
