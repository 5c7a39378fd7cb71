// POST /agent/search and POST /agent/query (spec §2.1, §2.2, §4.1): ranked snippets with provenance,
// and an answer plus the records that support it. Provenance is always present; no option removes it.
// Credentials in snippets and answers are masked before they leave (issue 41 part 5).
import type { FastifyInstance } from 'fastify';
import { noteSearchScope, parseSearchBody, type KnowledgeService } from '../knowledge/index.js';
import { maskSecretsFor } from '../governance/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { sendAgentBody } from './agent-reply.js';

export function registerKnowledgeRoutes(app: FastifyInstance, knowledge: KnowledgeService): void {
  app.post('/agent/search', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const { request: search, responseFormat } = parseSearchBody(request.body);
    noteSearchScope(principal, search, 'target');
    const { records, retrieval } = await knowledge.search(principal, search);
    return sendAgentBody(
      request,
      reply,
      maskSecretsFor(principal.workspace, {
        query: search.query,
        count: records.length,
        ...(retrieval === undefined ? {} : { retrieval }),
        results: records,
      }),
      responseFormat,
      records.length,
    );
  });

  app.post('/agent/query', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const { request: search, responseFormat } = parseSearchBody(request.body);
    noteSearchScope(principal, search, 'target');
    const result = await knowledge.query(principal, search, request.snapshot.config.knowledge.answerer);
    const masked = maskSecretsFor(principal.workspace, result);
    return sendAgentBody(request, reply, masked, responseFormat, masked.sources.length);
  });
}
