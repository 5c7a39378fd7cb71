// What the agent endpoints and the gateway's own MCP tools ask of the knowledge layer: ranked
// documents (or chunks) with provenance, an answer with the records behind it, and bounded pages of
// one document.
// The workspace and the visible sources always come from the principal (spec §1, §5.2).
import { canSeeSource, type Principal } from '../auth/index.js';
import type { AnswererConfig } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { AnswererFailed, type Answerer, type AnswerFailure } from './chat-answerer.js';
import { decodeCursor, encodeCursor } from './document-cursor.js';
import { extractiveAnswer, type AnswerSentence, type CandidateChunk } from './extractive-answer.js';
import { EmbeddingFailed } from './embeddings/embedding-provider.js';
import { meaningAnswer } from './meaning-answer.js';
import type { KnowledgeStore } from './knowledge-store.js';
import { queryTerms } from './query-terms.js';
import type { WorkspaceEmbeddings } from './embeddings/workspace-embeddings.js';
import type { Fusion } from './hybrid-fusion.js';
import { retrieve, type Retrieved, type RetrievalFallback, type RetrievalMode } from './retrieve.js';
import { CANDIDATE_POOL, collapseByDocument, type GroupBy } from './document-collapse.js';
import { searchRecord, type SearchRecord } from './search-record.js';
import { chunkId } from './stable-ids.js';
import { inSpan } from '../telemetry/tracing.js';

export interface SearchRequest {
  readonly query: string;
  readonly limit: number;
  readonly connectorId: string | undefined;
  readonly sourceType: string | undefined;
  readonly snippetChars: number;
  /** lexical, semantic or hybrid; undefined: hybrid when the workspace has embeddings, else lexical. */
  readonly mode?: RetrievalMode | undefined;
  /** One entry per document (default) or one per chunk. */
  readonly groupBy?: GroupBy | undefined;
}

/** How a search was answered: shown when the workspace has embeddings or a mode was asked for. */
export interface RetrievalRecord {
  readonly requested: RetrievalMode;
  readonly used: RetrievalMode;
  /** Why vectors were not used although asked for (the provider's failure, or `not_configured`). */
  readonly fallback_reason: RetrievalFallback | null;
}

export type { SearchRecord } from './search-record.js';

export interface SearchOutcome {
  readonly terms: string[];
  readonly records: SearchRecord[];
  readonly texts: string[];
  /** The best-ranked `limit` chunks in chunk order, whatever the grouping: what an extractive answer
   * is drawn from (a document's answering passage is often not its best chunk). Their documents are
   * always among `records`: a document's best chunk ranks no lower than any other of its chunks. */
  readonly passages: { readonly chunkId: string; readonly docId: string; readonly text: string }[];
  /** Present when the workspace has embeddings or the request named a mode. */
  readonly retrieval: RetrievalRecord | undefined;
  readonly question: Retrieved['question'];
}

export interface DocumentPage {
  readonly doc_id: string;
  readonly title: string;
  readonly connector_id: string;
  readonly source_type: string;
  readonly url: string | null;
  readonly updated_at: string | null;
  readonly total_chunks: number;
  readonly chunks: readonly {
    chunk_id: string;
    n: number;
    text: string;
    char_start: number;
    char_end: number;
  }[];
  readonly next_cursor?: string;
}

export interface QueryResult {
  readonly query: string;
  /** Who wrote the answer: `extractive` (verbatim sentences) or `openai-compatible` (a chat model). */
  readonly answerer: 'extractive' | 'openai-compatible';
  readonly model: string | null;
  /** Why the configured chat model's answer was not used (the extractive one was), or null. */
  readonly fallback_reason: AnswerFailure | null;
  readonly answer: string;
  /** `chunk_id` is the quoted chunk; `doc_id` its document, always one of `sources` (by default a
   * source is a document shown by its best chunk, and the quoted chunk may be another of its chunks). */
  readonly citations: readonly { n: number; chunk_id: string; doc_id: string; text: string }[];
  readonly sources: readonly SearchRecord[];
  /** How the sources were found and (for the extractive answer) how its sentences were chosen:
   * present when the workspace has embeddings or the request named a mode. */
  readonly retrieval?: RetrievalRecord & {
    readonly sentences_by: 'meaning' | 'word_overlap' | null;
  };
}

export interface KnowledgeServiceOptions {
  readonly logger?: Logger;
  /** Builds the chat answerer for a configured `knowledge.answerer`. */
  readonly answerer?: (config: AnswererConfig) => Answerer;
  /** The workspaces' embeddings providers; absent: lexical search only. */
  readonly embeddings?: WorkspaceEmbeddings;
  /** The fusion rule of hybrid search (the benchmark compares rules; search uses DEFAULT_FUSION). */
  readonly fusion?: Fusion;
}

/** No document the key can see has this id. `hiddenIn` names the data source when the document
 * exists in one the key cannot see: for the audit record only, never for the caller. */
export class DocumentNotFound extends Error {
  constructor(
    docId: string,
    readonly hiddenIn?: string,
  ) {
    super(docId);
  }
}
export class InvalidCursor extends Error {}

/** Upper bounds of one get_document page. */
export const PAGE_MAX_CHUNKS = 8;
export const PAGE_MAX_CHARS = 8000;

export class KnowledgeService {
  constructor(
    private readonly store: KnowledgeStore,
    private readonly options: KnowledgeServiceOptions = {},
  ) {}

  private visibleSources(principal: Principal): string[] {
    return principal.workspace.dataSources.filter((s) => canSeeSource(principal, s.name)).map((s) => s.name);
  }

  hasSources(principal: Principal): boolean {
    return this.visibleSources(principal).length > 0;
  }

  async search(principal: Principal, request: SearchRequest): Promise<SearchOutcome> {
    // The span records sizes, counts and modes only: never the query, the terms or what was found.
    return inSpan(
      'knowledge.search',
      {
        attributes: {
          'agw.knowledge.store': this.store.kind,
          'agw.query.length': request.query.length,
          'agw.search.limit': request.limit,
        },
      },
      async (span) => {
        const terms = queryTerms(request.query);
        const workspace = principal.workspace.name;
        // Each list offers the same fixed pool whatever the limit, so rank never depends on it.
        const retrieved = await retrieve({
          store: this.store.workspace(workspace),
          workspace,
          query: request.query,
          terms,
          filters: {
            allowedSourceIds: this.visibleSources(principal),
            sourceId: request.connectorId,
            sourceType: request.sourceType,
          },
          poolSize: CANDIDATE_POOL,
          mode: request.mode,
          embeddings: this.options.embeddings,
          fusion: this.options.fusion,
        });
        const shown = retrieved.embeddingsConfigured || request.mode !== undefined;
        const groupBy = request.groupBy ?? 'document';
        const entries =
          groupBy === 'chunk'
            ? retrieved.hits.slice(0, request.limit).map((best) => ({ best, others: undefined }))
            : collapseByDocument(retrieved.hits).slice(0, request.limit);
        const records = entries.map(({ best, others }, index) =>
          searchRecord(best, index + 1, terms, request.snippetChars, shown, others),
        );
        const { requested, used, fallbackReason } = retrieved.retrieval;
        span.setAttribute('agw.query.terms', terms.length);
        span.setAttribute('agw.search.results', records.length);
        span.setAttribute('agw.search.mode', used);
        span.setAttribute('agw.search.group_by', groupBy);
        if (fallbackReason !== null) span.setAttribute('agw.search.fallback', fallbackReason);
        return {
          terms,
          records,
          texts: entries.map(({ best }) => best.hit.text),
          passages: retrieved.hits.slice(0, request.limit).map(({ hit }) => ({
            chunkId: chunkId(hit.docId, hit.chunkNo),
            docId: hit.docId,
            text: hit.text,
          })),
          retrieval: shown ? { requested, used, fallback_reason: fallbackReason } : undefined,
          question: retrieved.question,
        };
      },
    );
  }

  async query(
    principal: Principal,
    request: SearchRequest,
    answererConfig?: AnswererConfig,
  ): Promise<QueryResult> {
    const { terms, records, texts, passages, retrieval, question } = await this.search(principal, request);
    const describe = (sentencesBy: 'meaning' | 'word_overlap' | null) =>
      retrieval === undefined ? {} : { retrieval: { ...retrieval, sentences_by: sentencesBy } };
    let fallback: AnswerFailure | null = null;
    if (answererConfig !== undefined && this.options.answerer !== undefined && records.length > 0) {
      const answerer = this.options.answerer(answererConfig);
      try {
        const { answer, cited } = await answerer.answer(
          request.query,
          records.map((record, index) => ({
            n: index + 1,
            title: record.title,
            text: texts[index] as string,
          })),
        );
        return {
          query: request.query,
          answerer: 'openai-compatible',
          model: answerer.model,
          fallback_reason: null,
          answer,
          citations: cited.map((n) => {
            const record = records[n - 1] as SearchRecord;
            return { n, chunk_id: record.chunk_id, doc_id: record.doc_id, text: record.snippet };
          }),
          sources: records,
          ...describe(null),
        };
      } catch (error) {
        fallback = error instanceof AnswererFailed ? error.reason : 'unreachable';
        this.options.logger?.warn(
          {
            workspace: principal.workspace.name,
            reason: fallback,
            status: error instanceof AnswererFailed ? error.status : undefined,
          },
          'chat answerer failed; the extractive answer is used',
        );
      }
    }
    const chunks = passages.map((passage, index) => ({
      chunkId: passage.chunkId,
      text: passage.text,
      rank: index,
    }));
    const docOf = new Map(passages.map((passage) => [passage.chunkId, passage.docId]));
    const byMeaning =
      question === undefined ? undefined : await this.meaningSentences(principal, question.vector, chunks);
    const sentences = byMeaning ?? extractiveAnswer(terms, chunks);
    const citations = sentences.map((sentence, index) => ({
      n: index + 1,
      chunk_id: sentence.chunkId,
      doc_id: docOf.get(sentence.chunkId) as string,
      text: sentence.text,
    }));
    const answer =
      citations.length > 0
        ? citations.map((c) => `${c.text} [${c.n}]`).join(' ')
        : records.length > 0
          ? 'No sentence of the retrieved records can be quoted as an answer; the closest records are in sources.'
          : 'No supporting records were found in this workspace for that question.';
    return {
      query: request.query,
      answerer: 'extractive',
      model: null,
      fallback_reason: fallback,
      answer,
      citations,
      sources: records,
      ...describe(byMeaning === undefined ? 'word_overlap' : 'meaning'),
    };
  }

  /** Answer sentences chosen by embedding similarity, or undefined when they cannot be (the word
   * overlap answer is used then). */
  private async meaningSentences(
    principal: Principal,
    question: Float32Array,
    chunks: readonly CandidateChunk[],
  ): Promise<AnswerSentence[] | undefined> {
    const lookup = this.options.embeddings?.forQuery(principal.workspace.name);
    if (lookup?.state !== 'ready' || chunks.length === 0) return undefined;
    try {
      return await meaningAnswer(lookup.provider, question, chunks, AbortSignal.timeout(lookup.timeoutMs));
    } catch (error) {
      this.options.logger?.warn(
        {
          workspace: principal.workspace.name,
          reason: error instanceof EmbeddingFailed ? error.reason : 'unreachable',
        },
        'answer sentences could not be embedded; chosen by word overlap',
      );
      return undefined;
    }
  }

  /** A page of one document: from its start, from where `cursor` left off, or from chunk number
   * `fromChunk` (a search's `other_chunk_ids` name chunks a client may want to jump to). */
  async getDocument(
    principal: Principal,
    docId: string,
    cursor: string | undefined,
    fromChunk?: number,
  ): Promise<DocumentPage> {
    const store = this.store.workspace(principal.workspace.name);
    const document = await store.getDocument(docId);
    if (document === undefined) throw new DocumentNotFound(docId);
    if (!this.visibleSources(principal).includes(document.sourceId))
      throw new DocumentNotFound(docId, document.sourceId);
    let from = fromChunk ?? 0;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (decoded === undefined || decoded.docId !== docId)
        throw new InvalidCursor('the cursor is not valid for this document');
      if (decoded.version !== document.contentHash.slice(0, 16))
        throw new InvalidCursor(
          'the document changed since the cursor was issued; start again without a cursor',
        );
      from = decoded.nextChunk;
    }
    const candidates = await store.getChunks(docId, from, PAGE_MAX_CHUNKS);
    const chunks: DocumentPage['chunks'][number][] = [];
    let chars = 0;
    for (const chunk of candidates) {
      if (chunks.length > 0 && chars + chunk.text.length > PAGE_MAX_CHARS) break;
      chunks.push({
        chunk_id: chunkId(docId, chunk.chunkNo),
        n: chunk.chunkNo,
        text: chunk.text,
        char_start: chunk.charStart,
        char_end: chunk.charEnd,
      });
      chars += chunk.text.length;
    }
    const last = chunks.at(-1);
    const next = last === undefined ? document.chunkCount : last.n + 1;
    return {
      doc_id: docId,
      title: document.title,
      connector_id: document.sourceId,
      source_type: document.sourceType,
      url: document.url ?? null,
      updated_at: document.updatedAt ?? null,
      total_chunks: document.chunkCount,
      chunks,
      ...(next < document.chunkCount
        ? {
            next_cursor: encodeCursor({ docId, nextChunk: next, version: document.contentHash.slice(0, 16) }),
          }
        : {}),
    };
  }
}
