// The requirement list (STYLE 14), keyed by spec section or issue. Every id must appear in the name
// of at least one test; test/unit/requirements.test.ts fails when one has none.
export const REQUIREMENTS: Record<string, string> = {
  'memory:files-watch-bounded':
    'issue 26: a files source watches one directory per directory its walk enters, never excluded ones, at most a bound',
  'memory:limiter-sweep':
    'issue 26: the in-memory limiter drops counters that no longer count, so unbounded OAuth subjects leave nothing behind',
  'memory:lazy-loads':
    'issue 26: a gateway never loads the Kubernetes client (not even serve --kubernetes), and loads the tokenizer, Redis, PostgreSQL, MCP client, undici and jose only when its config uses them',
  'kube:list-watch':
    "issue 26: the gateway's own Kubernetes client lists and watches rendered parts (adds, updates, deletes) with token or client-certificate kubeconfigs",
  'kube:kubeconfig-load':
    "issue 26: the gateway's kubeconfig loader: current context, files and inline data, token file, default chain, clear refusals",
  'kube:watch-resume':
    'issue 26: a watch the server ends is resumed from the last resourceVersion, with no relist',
  'kube:watch-gone-relists':
    'issue 26: a 410 Gone (expired resourceVersion) relists once and the watch carries on',
  'kube:token-file-rotation':
    'issue 26: a service account token rotated in its file is used on the next request',
  'kube:tls-verified':
    'issue 26: the API server is verified against the configured CA; skipping verification is refused',
  'kube:watch-line-bound':
    'issue 26: a watch line longer than the bound is refused; the last good objects stay',
  'reach:connection-string-edges':
    'issue 20: libpq query hosts replace an empty authority; malformed escapes never throw',
  'reach:address-spellings':
    'issue 20: mapped, compatible, NAT64 and bracketed spellings count as the address they carry',
  'reach:built-in-ranges':
    'issue 20: loopback, link-local, unspecified, multicast, reserved, own and API-server addresses are denied',
  'reach:decision-order':
    'issue 20: CIDR exceptions, built-in ranges, host exceptions, deny CIDRs, default action, in that order',
  'reach:localhost-by-name': 'issue 20: localhost names are loopback before any lookup',
  'reach:path-text':
    'issue 20: file roots per namespace; relative, dotted and prefix-sharing paths are refused',
  'reach:policy-schema': 'issue 20: the policy schema refuses bad CIDRs and roots; its defaults are secure',
  'reach:guard-resolve':
    'issue 20: the guard decides literal and resolved addresses; any denied address refuses a name',
  'reach:guard-fetch':
    'issue 20: fetch dials the checked address; redirects to denied names are refused, nothing connects',
  'reach:guard-agent': 'issue 20: undici pools built by the guard refuse denied targets',
  'reach:guard-postgres': 'issue 20: node-postgres dials through the guard; Unix socket paths are refused',
  'reach:confine-root':
    'issue 20: source roots must lie inside an allowed root as written and after symlinks',
  'reach:read-confined':
    'issue 20: each file read is checked on its open descriptor (symlinks, swapped directories, FIFOs)',
  'helm:redis-encryption':
    'issue 28.8: the chart creates and wires the Redis encryption key; the gateway accepts its config',
  'security:redis-at-rest':
    'issue 28.8: after a realistic run Redis holds no config, credential, session id, content or seal key in clear, and every key expires',
  'security:redis-key-rotation':
    'issue 28.8: the Redis encryption key rotates (add, move first, drop) without dropping upstream sessions or bridged calls',
  'security:redis-values-encrypted':
    'issue 28.8: values in Redis open only with a configured key, in their own place, untampered',
  'security:redis-key-refused': 'issue 28.8: a missing, short or repeated encryption key is refused',
  'security:redis-key-digests': 'issue 28.8: Redis key names carry digests, never config or caller material',
  'security:redis-needs-key': 'issue 28.8: shared Redis without encryption keys is refused by the config',
  'security:seal-key-rotation': 'issue 28.8: requestState seal keys rotate with the encryption keys',
  'attacker:pending-flows-capped':
    'issue 28.1: pending bridged calls are capped per key and workspace (rate_limited with Retry-After) and released after the idle timeout',
  'attacker:pending-flow-client-gone':
    'issue 28.1: a bridged call whose client goes away before its first answer is released at once',
  'attacker:bridged-sessions-reused':
    "issue 28.1: a bridged upstream session carries one call at a time and is reused by the same key's next call (few, briefly), replaced when the upstream forgot it",
  'mcp:bridge-waits-for-stream':
    "a bridged call starts once the upstream session's GET stream is open, so a 2025-era server's untied elicitation is not dropped",
  'discovery:invalidation-retried':
    'issue 28.11: a shared-cache invalidation Redis could not take is retried until every replica converges',
  'readme:quickstart':
    "issue 20: the README's quick start commands, and the docs pages' calls to the embedded gateway, still run as written",
  'cli:help-real-binary':
    'issue 20: the real binary answers --help (exit 0) and --version ends with a newline',
  'cli:help-every-command': 'issue 20: every command answers --help/-h with its own usage (exit 0)',
  'cli:usage-lists-documented-flags': 'issue 20: the top-level usage lists every documented flag',
  'attacker:fuzz-edge':
    'issue 28: the fuzz test sends unknown methods, ids beyond 2^53, duplicate headers and deep nesting: 0 5xx, 0 silent closes, 0 changed ids',
  'attacker:unknown-methods':
    'issue 28.2: unknown methods answer 405 with Allow (or 404/401), never 500 or a silent close',
  'attacker:malformed-http': 'issue 28.2: requests Node refuses answer 400 in the documented error body',
  'attacker:duplicate-headers': 'issue 28.7: duplicate Authorization or Host headers are refused with 400',
  'attacker:exact-ids-http':
    'issue 28.3: ids beyond 2^53 are refused with id null over HTTP, with or without a key',
  'attacker:deep-arguments':
    'issue 28.4: deep arguments never reach the upstream nor count against its health',
  'attacker:metrics-cardinality':
    'issue 28.5: 10k random methods, paths, tool names and session ids add no series',
  'attacker:metrics-loopback': 'issue 28.6: the Prometheus port listens on loopback unless configured',
  'attacker:in-band-logged': 'issue 28.9: in-band failures log their class and code, never content',
  'attacker:sync-metric-workspace': 'issue 28.10: sync metrics carry the workspace',
  'attacker:exact-ids': 'issue 28.3: JSON-RPC ids are echoed exactly or refused (id null), never changed',
  'attacker:argument-depth':
    'issue 28.4: params nested past 64 levels are a request error before any upstream',
  'tenant:rbac-namespace-only':
    'issue 20: a tenant with the chart role writes its own namespace only, never status or rendered objects',
  'tenant:files-inside-root':
    'issue 20: a files source inside its allowed root is indexed; a symlink out is not read',
  'tenant:path-not-allowed':
    'issue 20: files paths outside the root, with .., or escaping through a symlink are refused (PathNotAllowed)',
  'tenant:renamed-directory':
    'issue 20: a directory swapped for a symlink out of its root after indexing is refused',
  'tenant:address-not-allowed':
    'issue 20: loopback, [::1], link-local, the API server, DNS names and mapped forms of denied addresses are refused (AddressNotAllowed), nothing connects',
  'tenant:redirect-and-next-page':
    'issue 20: redirects and next-page URLs to denied addresses are refused where the connection is made',
  'tenant:workspace-not-found':
    'issue 20: a reference to a Workspace of another namespace is WorkspaceNotFound',
  'tenant:forged-rendered-objects':
    'issue 20: the gateway enforces the policy again on rendered objects written around the operator',
  'tenant:embedded-policy': 'issue 20: the embedded file can set the same policy and it is enforced',
  'tenant:events': 'issue 20: the operator records Events for keys issued, resources rendered and refusals',
  'tenant:rendered-refs-own-secret':
    'issue 20: workspaces from the API may reference only their own rendered Secret, and run no stdio source',
  'auth:401-missing': 'spec §5.3: no credential gives 401 with a Bearer challenge',
  'auth:401-not-bearer': 'spec §5.3: an unsupported scheme gives 401',
  'auth:401-malformed': 'spec §5.3 / D13: a key with a bad format or checksum gives 401',
  'auth:401-unknown': 'spec §5.3: a key that was never issued gives 401',
  'auth:401-revoked': 'spec §5.3: a revoked key gives 401',
  'auth:401-expired': 'spec §5.3: an expired key gives 401',
  'auth:401-mcp': 'spec §5.1: the MCP endpoint requires the key too',
  'auth:401-before-routing': 'deny by default: unauthenticated callers learn nothing about routes',
  'auth:403-write-needed': 'spec §5.4: a valid key lacking write access gets 403 with the scope it needs',
  'auth:403-origin': 'MCP transport security: a disallowed browser Origin gets 403',
  'auth:no-oracle': 'spec §5.5: what a key cannot see answers like what does not exist',
  'auth:workspace-from-key': 'spec §1: the workspace comes from the key',
  'auth:workspace-not-from-request': 'spec §1: requests carry no workspace identifier',
  'auth:key-patterns': 'spec §5.2: keys restrict visible sources and tools',
  'auth:revocation-without-restart': 'issue 2: revocation takes effect without restart',
  'reload:key-create': 'issue 2: a key created by the CLI is accepted after hot reload',
  'reload:invalid-kept-last-good': 'D10: an invalid config is logged by path and the last good one kept',
  'reload:concurrent': 'D10: a swap never drops in-flight requests',
  'rest:tools-toon-default': 'spec §4.1 rule 2: TOON by default',
  'rest:tools-json': 'spec §4.1 rule 2: JSON on request',
  'rest:partial-failure': 'D14: a source that is down is left out and named',
  'rest:format-invalid': 'clear 400 naming the field for a bad response_format',
  'rest:sources': 'spec §4.1: GET /agent/sources lists the workspace connectors',
  'rest:source-one':
    'issue 39: GET /agent/sources/{id} is one source (the refresh 202 points at it); hidden = unknown',
  'rest:mcp-config': 'spec §4.1: GET /agent/mcp/config for the same credential, without the secret',
  'rest:mcp-config-toon': 'spec §4.1 rule 2: the config endpoint honours the format too',
  'errors:request-id':
    'issue 2, 37.7: every response carries a request id the gateway minted, never the caller’s',
  'errors:body-shape': 'spec §7 / issue 2: one documented REST error body',
  'errors:415': 'request bodies must be JSON',
  'errors:identity-provider-unavailable':
    'issue 29 follow-up: an authorization server that does not answer is a transient 503 code of its own',
  'health:open': 'issue 2: health and readiness stay open',
  'logs:no-secrets': 'spec §5.7: no key material, header value or body in logs',
  'logs:request-line': 'spec §5.7: request ids and status are logged',
  'cli:node-provisioning': 'D1: the CLI runs on Node 24 even when started by an older Node',
  'mcp:modern-client': 'issue 3: the v2 SDK client negotiates 2026-07-28 through the gateway',
  'mcp:legacy-client-v2': 'issue 3: 2025-era clients work through the stateless legacy face',
  'mcp:legacy-client-v1': 'issue 3: the v1 SDK client works and gets no session id',
  'mcp:no-session-id': 'spec §4.2 rule 7 / duty 1: no Mcp-Session-Id reaches the client',
  'mcp:tools-list-filtered':
    'spec §4.2 rule 2: tools/list holds only what the key may call, deterministic order',
  'mcp:write-denied-without-oauth':
    'spec §5.4–5.5, D18, issue 8.11: checked before any upstream contact; on /mcp an in-band error, not an OAuth challenge',
  'mcp:no-oracle': 'spec §5.5: an invisible tool answers like an unknown tool',
  'mcp:header-mismatch-not-executed': 'spec §4.2 rule 1: a mismatch is rejected and not executed',
  'mcp:param-header': 'duty 4: Mcp-Param-* headers mirror x-mcp-header arguments',
  'mcp:credentials-not-forwarded': 'duty 23: the client key never goes upstream',
  'mcp:result-envelope': 'duties 7–8: resultType, serverInfo, ttlMs, cacheScope',
  'mcp:legacy-unsupported-version': 'legacy face: unknown version headers are rejected',
  'ladder:405': 'duty 1: GET/DELETE answer 405 with Allow: POST',
  'ladder:415': 'duty 2: Content-Type must be application/json',
  'ladder:413': 'duty 2: body size limit',
  'ladder:parse-error': 'duty 2: -32700 for invalid JSON',
  'ladder:batch': 'duty 2: batches rejected',
  'ladder:invalid-request': 'JSON-RPC shape checks',
  'ladder:version-header-missing': 'duty 4: MCP-Protocol-Version required on modern requests',
  'ladder:version-mismatch': 'duty 4: header version equals _meta version',
  'ladder:unsupported-version': 'duty 5: -32022 with the supported list',
  'ladder:method-mismatch': 'duty 4: Mcp-Method mirrors the body',
  'ladder:name-mismatch': 'duty 4: Mcp-Name mirrors params.name (Base64 sentinel decoded)',
  'ladder:meta-missing': 'duty 5: required _meta keys give -32602',
  'ladder:initialize-modern': 'initialize with a modern version header is rejected',
  'ladder:method-not-found': 'duty 5: 404 -32601 for unknown modern methods',
  'ladder:notification': 'modern notifications are accepted with 202',
  'mcp:breaker-isolation': 'spec §3 / D14: a hung source does not slow calls to a healthy one',
  'mcp:breaker-opens': 'spec §3: a failing source is answered at once while its breaker is open',
  'mcp:breaker-recovers': 'issue 3: the breaker probes and closes again',
  'discovery:dead-source-warns-once':
    'issue 37.12: a source that stops answering is logged once on entering failing (and once on recovery), not per request',
  'discovery:dead-source-off-request-path':
    'issue 37.12: requests neither contact a source known to be failing nor wait for its time-out; it is left out and named (D14)',
  'discovery:dead-source-probed-back':
    'issue 37.12: a background prober brings a failing source back when it answers again, with no client request',
  'discovery:dead-source-replicas':
    'issue 37.12: with Redis, one probe brings a dead source back for every replica; the others take its list from Redis',
  'discovery:failing-left-out':
    'issue 37.12: the catalog leaves a failing source out and its probe reconnects it',
  'discovery:failing-caller-errors':
    'issue 37.12: a failure about the caller or one request (4xx, no identity) does not make a source failing',
  'discovery:failing-retained': 'issue 37.12: a config change without the failing source stops its probe',
  'discovery:probe-backoff':
    "issue 37.12: probes back off from 1 s to the breaker's reset time with jitter, never faster than the breaker's cadence",
  'discovery:probe-once':
    'issue 37.12: one transition per failure, one probe at a time per source, none after recovery',
  'discovery:probe-bounded': 'issue 37.12: a replica runs a bounded number of probes at once',
  'discovery:probe-stopped': 'issue 37.12: probes stop when the source leaves the config and on shutdown',
  'mcp:mrtr-passthrough': 'spec §4.2 rule 5 / duty 13: input_required relayed, retry forwarded byte-exact',
  'mcp:mrtr-sdk-client': 'issue 3: a real v2 client completes MRTR through the gateway',
  'mcp:client-capabilities-forwarded': 'duty 12: the downstream client capabilities reach the upstream',
  'mcp:progress-sse': 'duty 19: upstream progress on the request-scoped SSE stream',
  'mcp:cancel-on-disconnect': 'duty 20: a client disconnect cancels the upstream request',
  'mcp:legacy-session-hidden': 'spec §4.2 rule 7: upstream session ids stay in the gateway',
  'mcp:legacy-session-reinit': 'duty 15: re-initialise when a legacy upstream forgets the session',
  'mcp:legacy-progress': 'duty 19: progress from SDK-backed upstreams on the request SSE stream',
  'mcp:sse-upstream': 'spec §9.3: 2024-11-05 HTTP+SSE upstreams through the edge adapter',
  'mcp:everything': 'issue 3: the published server-everything over HTTP and stdio',
  'mcp:resources-namespaced': 'issue 3: upstream resources exposed under namespaced URIs',
  'mcp:resources-visibility': 'spec §5.5: resources of invisible sources answer like missing ones',
  'mcp:prompts-namespaced': 'issue 3: upstream prompts exposed as <source>__<prompt>',
  'mcp:completion-routed':
    'issue 24: completion/complete routed to the source owning the prompt or template, both eras',
  'mcp:completion-visibility':
    'issue 24: completion for a prompt or template of an invisible source answers like a missing one',
  'mcp:completion-invalid-ref': 'issue 24: a completion ref that names no prompt or resource is -32602',
  'mcp:completion-python-sdk': 'issue 24: completion/complete through the Python SDK client, both eras',
  'mcp:resource-templates-aggregated':
    'issue 24: resources/templates/list aggregated as <source>__<name>, agw://<source>/~/<template>',
  'mcp:resource-template-uri-forms':
    'issue 24: agw://<source>/~/<template> expands to a URI parsed back to the upstream expansion',
  'mcp:resource-templates-read':
    'issue 24: a URI expanded from a gateway template with odd values reads back through its source',
  'mcp:resource-templates-python-sdk':
    'issue 24: resource templates listed, expanded and read through the Python SDK client, both eras',
  'mcp:conformance':
    'issue 3: the published conformance suite runs against the gateway with a reasoned baseline',
  'mcp:conformance-fixture':
    "issue 24: the suite's fixture server passes every server scenario on its own (reasoned exceptions only)",
  'mcp:conformance-fixture-stdio':
    'issue 24: the conformance fixture over stdio serves the same fixtures and notifies resource subscribers',
  'auth:dns-rebinding': 'duty 2: Host validated for loopback binds, Origin validated',
  'mcp:legacy-elicitation-bridge':
    'duty 16: legacy elicitation bridged into input_required, single-use state',
  'mcp:bridge-state-bound':
    'duty 13: gateway requestState is integrity protected and bound to key and request',
  'mcp:legacy-sampling-bridge': 'duty 16: legacy sampling bridged into input_required',
  'mcp:legacy-bridge-sdk-client': 'issue 3: a real v2 client completes a bridged legacy elicitation',
  'mcp:sse-detected':
    'duty 21: era detection falls back to HTTP+SSE on 400/404/405 and is recorded with a timestamp',
  'knowledge:search': 'spec §2.2 / §4.1: ranked snippets with provenance, TOON by default',
  'knowledge:snippet-bounded': 'spec §2.2: bounded snippets, never whole documents',
  'knowledge:html-json': 'issue 4: files connector reads Markdown, text, HTML and JSON',
  'knowledge:filters': 'spec §2.1: connector_id and source_type filters',
  'knowledge:usage-header': 'spec §4.1 rule 3: X-Service-Usage when usage hints are enabled',
  'knowledge:validation': 'spec §2.1 / §8: every rejected input is a 400 naming the field',
  'knowledge:limits': 'spec §8: queries up to 2,000 characters are accepted',
  'knowledge:isolation': 'spec §1: nothing outside the key workspace is searched or shown',
  'knowledge:key-sources': 'spec §5.2: key source patterns restrict the knowledge searched',
  'knowledge:query-provenance': 'spec §2.2 / D8: every answer sentence is verbatim from a cited record',
  'knowledge:query-nothing': 'spec §2.2: provenance always present, even when empty',
  'knowledge:embeddings-config':
    'issue 22: knowledge.embeddings is optional, strict, with defaults and refusals that name the path',
  'knowledge:embeddings-batching':
    'issue 22: the embeddings client sends batches of batchSize to POST {baseUrl}/embeddings and answers in input order',
  'knowledge:embeddings-concurrency':
    'issue 22: at most `concurrency` embeddings requests in flight, across callers',
  'knowledge:embeddings-retry':
    'issue 22: 429 (honouring Retry-After), 5xx, timeouts and dropped connections are retried with backoff and jitter',
  'knowledge:embeddings-no-retry-4xx':
    'issue 22: other 4xx fail the embeddings call at once, with no partial result',
  'knowledge:embeddings-response-checked':
    'issue 22: an embeddings response with the wrong count, indices or lengths, or non-finite numbers, is refused',
  'knowledge:embeddings-rate-limit': 'issue 22: the embeddings client keeps to its own requestsPerMinute',
  'knowledge:embeddings-cache':
    'issue 22: unchanged texts are never embedded twice; a changed model or dimensions embeds again; bounded LRU',
  'knowledge:embeddings-hygiene':
    'issue 22: embeddings errors never carry the API key, the endpoint or the input texts',
  'knowledge:embeddings-reach':
    'issue 22: embeddings requests go through the tenant reach guard they are given',
  'knowledge:embeddings-twin': 'issue 22: the hashing twin is deterministic and normalised',
  'knowledge:chat-answerer': 'issue 4: an optional OpenAI-compatible chat answerer for /agent/query',
  'knowledge:chat-answerer-fallback': 'issue 4: the chat answerer falls back to extractive on failure',
  'knowledge:chat-answerer-hygiene':
    'issue 4: no secret or retrieved content in logs; provenance always present',
  'knowledge:mcp-tools': 'spec §4.2 rule 6: search and get_document with opaque cursor paging',
  'knowledge:sync-incremental': 'issue 4: incremental sync on demand; stable ids for unchanged items',
  'knowledge:files-watch': 'issue 4: the files connector follows changes to its directory tree',
  'knowledge:failing-connector': 'issue 4: a failing connector never blocks search over indexed data',
  'knowledge:http-connector': 'issue 4: REST JSON connector with pagination and field mapping',
  'knowledge:http-auth': 'issue 4: connector auth from a secret reference, never logged',
  'knowledge:mcp-resources-connector': 'issue 4: MCP resources of the workspace sources as documents',
  'knowledge:postgres-connector':
    'issue 4: a configured SQL query mapped to documents (id, title, body, url, updated_at)',
  'knowledge:postgres-incremental':
    'issue 4: the postgres connector syncs incrementally and removes deleted rows',
  'knowledge:postgres-read-only': 'issue 4: the postgres connector query is read-only',
  'knowledge:postgres-errors':
    'issue 4: connector failures reported safely in /agent/sources, never blocking search',
  'knowledge:store-contract':
    'issue 4 / D6: one contract suite runs against the SQLite and PostgreSQL stores',
  'knowledge:isolation-property':
    'issue 4 / issue 22: property test — no text search, vector search or read crosses workspaces, on both stores',
  'knowledge:vector-store-contract':
    'issue 22: both stores keep chunk vectors and rank them by cosine under the text search filters; other models and lengths are never compared',
  'knowledge:vector-missing':
    'issue 22: both stores list the chunks of a source that lack a vector of a (model, dimensions), paged, with progress',
  'knowledge:vector-cascade':
    'issue 22: vectors go with their chunks on re-upsert, document and source removal; none is orphaned or stored for stale text',
  'knowledge:postgres-vector-rls':
    'issue 22: row-level security hides the vectors of other workspaces from the application role',
  'knowledge:sqlite-vector-cache':
    'issue 22: the embedded store ranks vectors from memory, rebuilt whenever any connection changed them',
  'knowledge:embeddings-per-workspace':
    "issue 22: a workspace's own embeddings replace the gateway-wide provider; false turns them off there",
  'knowledge:collapse-documents':
    'issue 39: search and query results are one entry per document by default (best chunk as snippet, the others counted and named); group_by chunk keeps one per chunk',
  'knowledge:rank-independent-of-limit':
    'issue 39: every search draws a fixed candidate pool, so limit 10 is exactly the head of limit 30, lexical and hybrid',
  'knowledge:fusion-convex': 'issue 22: hybrid fusion blends min-max-normalised lexical and cosine scores',
  'knowledge:fusion-rrf': 'issue 22: reciprocal rank fusion is available for comparison',
  'knowledge:fusion-one-list': 'issue 22: fusion of one-element lists gives finite scores',
  'knowledge:hybrid-default':
    'issue 22: with embeddings search is hybrid by default and says which list found each result',
  'knowledge:hybrid-unchanged-without-embeddings':
    'issue 22: without embeddings search answers exactly as before (no retrieval field, no found_by)',
  'knowledge:hybrid-modes': 'issue 22: lexical and semantic modes on request',
  'knowledge:hybrid-filters': "issue 22: the vector side honours the key's sources and the request filters",
  'knowledge:hybrid-isolation': "issue 22: vector search never returns another workspace's chunks",
  'knowledge:hybrid-not-configured':
    'issue 22: a semantic mode without a provider answers lexically and says so',
  'knowledge:hybrid-provider-down':
    'issue 22: a failing provider makes search lexical with the reason, with a back-off before it is asked again',
  'knowledge:hybrid-provider-stalls':
    'issue 22: a stalled provider costs at most queryTimeoutMs, then lexical',
  'knowledge:hybrid-no-vectors-yet':
    'issue 22: chunks not embedded yet are still found lexically in hybrid mode',
  'knowledge:answer-by-meaning':
    'issue 22: /agent/query picks answer sentences by embedding similarity, verbatim and cited',
  'knowledge:answer-by-meaning-fallback':
    'issue 22: when sentences cannot be embedded the answer uses word overlap and says so',
  'knowledge:answer-hashing-twin': 'issue 22: the hashing twin drives the service end to end',
  'knowledge:sync-embeds-every-chunk':
    'issue 22: a sync embeds every chunk and shows progress in the source state',
  'knowledge:sync-embeds-nothing-twice':
    'issue 22: unchanged chunks are never embedded again; a changed document re-embeds only its chunks',
  'knowledge:sync-new-model-re-embeds': 'issue 22: a new model or length re-embeds every chunk',
  'knowledge:sync-embed-failure':
    'issue 22: a failed embedding pass leaves the sync a success, the failure shown without secrets, resumed next sync',
  'knowledge:sync-without-embeddings': 'issue 22: without a provider a sync does no embedding work',
  'knowledge:embed-resumes-after-provider-failure':
    'issue 39: a pass stopped by a failing provider resumes by itself once it recovers: ready, each chunk once, no new sync',
  'knowledge:embed-resumes-after-pass-limit':
    'issue 39: a pass cut by passTimeoutMs resumes where it stopped until every chunk is embedded',
  'knowledge:embed-resume-stops-with-engine': 'issue 39: stop() drops a pending resumption',
  'knowledge:embed-resume-ends-with-config-change':
    'issue 39: a source that leaves the config is not resumed',
  'knowledge:pass-retry-backoff':
    'issue 39: resumptions wait 5 s doubling to 5 min (jittered) while passes make no headway, one timer per source',
  'knowledge:rate-meter':
    'issue 39: a rate and time left only once enough has happened and the total is known',
  'knowledge:progress-embedding-pass':
    'issue 39: /agent/sources shows chunks done of the total, a rate and time left while a pass runs',
  'knowledge:refresh-202':
    'issue 39: a data source refresh answers 202 at once and is followed on /agent/sources to its end',
  'knowledge:id-like-file-name-no-title':
    'issue 39: an id-like file name is not a title (not embedded, not weighted); a meaningful one is',
  'knowledge:heading-path':
    'issue 39: each Markdown chunk carries the heading path in effect where it starts (nested, setext, code fences ignored)',
  'knowledge:heading-plain-text':
    'issue 39: a body with no Markdown heading lines gets no heading path; chunks unchanged',
  'knowledge:heading-store':
    'issue 39: both stores keep a chunk heading, return it on hits and rank a heading match alike',
  'knowledge:heading-migration':
    'issue 39: an existing SQLite file without chunks.heading gets the column on open',
  'knowledge:chunk-hits': 'issue 22: both stores return chunks by key under the filters, in key order',
  'knowledge:hybrid-sources-progress':
    'issue 22: /agent/sources shows every chunk embedded by the real model',
  'knowledge:hybrid-readme-question':
    "issues 22, 39: the README's question finds the breaker chunk in the top three, lexical and hybrid",
  'knowledge:hybrid-answer-by-meaning':
    'issue 22: answers by meaning quote the cited chunks verbatim (real model)',
  'knowledge:hybrid-mcp-search': 'issue 22: the MCP search tool takes a mode and reports how it searched',
  'knowledge:hybrid-model-down':
    'issue 22: with the model server gone search is lexical and says why; nothing leaks to logs',
  'operator:embeddings-plan':
    'issue 22: Workspace spec.embeddings is rendered with its key copied into the workspace Secret',
  'operator:embeddings-not-used':
    'issue 22: an unusable tenant embeddings spec renders embeddings off (never gateway-wide) and says why',
  'operator:embeddings-round-trip':
    'issue 22: Workspace spec.embeddings reaches the gateway config through the rendered objects',
  'crd:workspace-embeddings':
    'issue 22: the Workspace CRD validates spec.embeddings with CEL and stores no defaults',
  'helm:embeddings': 'issue 22: the chart renders knowledge.embeddings with its key from a Secret',
  'knowledge:vector-top-k': 'issue 22: brute-force vector ranking keeps the exact top k in one total order',
  'knowledge:vector-approximate-recall':
    'issue 22: the IVF index keeps recall@10 ≥ 0.9 against brute force on clustered vectors, re-scoring exactly',
  'knowledge:vector-approximate-filters':
    'issue 22: the approximate path honours allowed sources, source and type; a filter under the threshold is exact',
  'knowledge:vector-approximate-deterministic':
    'issue 22: the same vectors in any row order build the same index and give the same answers',
  'knowledge:vector-index-sliced': 'issue 22: the index build yields often enough to share the event loop',
  'knowledge:vector-approximate-store':
    'issue 22: both stores answer through the index above the threshold, alike on two processes, rebuilt after writes',
  'knowledge:postgres-vector-epoch':
    'issue 22: a gateway holding PostgreSQL vectors in memory sees another pool’s vector writes on its next search',
  'knowledge:pgvector-mode-switch':
    'issue 22: pgvector and in-memory gateways on one database see each other’s vector writes; switching modes loses no vector',
  'knowledge:pgvector-auto':
    'issue 22: vectorSearch auto uses pgvector where the extension exists or can be created, memory where it cannot; pgvector requested there is a start-up config error',
  'knowledge:pgvector-iterative-scan':
    'issue 22: a filtered pgvector search returns k exactly ranked hits when matches lie beyond ef_search (iterative HNSW scan)',
  'knowledge:pgvector-isolation':
    "issue 22: pgvector search never returns another workspace's vectors, even the nearest; row-level security is forced on them",
  'knowledge:postgres-rls': 'issue 4: PostgreSQL enforces workspace isolation with row-level security',
  'knowledge:postgres-index': 'issue 4: PostgreSQL search uses the full-text index under row-level security',
  'knowledge:sync-lock-shared':
    'issue 4: a per-source lock keeps several gateway processes from syncing one source at once',
  'knowledge:gateway-postgres': 'issue 4 / D7: the cluster shape serves search from the PostgreSQL index',
  'auth:canonical-path': 'issue 8.1: every spelling of a protected path meets the gate of the matched route',
  'auth:absolute-form': 'issue 8.1: absolute-form and scheme-relative request targets are 400',
  'auth:host-strict': 'issue 8.1: a missing or malformed Host fails the loopback Host check',
  'mcp:mirror-every-era':
    'issue 8.2: present Mcp-Method/Mcp-Name/Mcp-Param-* headers must mirror the body in both eras',
  'ladder:invalid-utf8': 'issue 8.6: a /mcp body that is not UTF-8 is -32700 and not forwarded',
  'limits:slow-body': 'issue 8.4: a trickled body is cut off at server.timeouts.requestMs',
  'limits:slow-headers': 'issue 8.4: unfinished headers are cut off at server.timeouts.headersMs',
  'limits:unauthenticated-no-pin': 'issue 8.4: an unauthenticated request cannot hold its socket',
  'logs:client-abort-not-error': 'issue 8.10: a client that disconnects is not an error',
  'logs:key-fingerprint': 'issue 8.12: the request log line carries the key fingerprint',
  'mcp:fuzz-no-5xx-no-leak':
    'issue 8: generated requests in both eras never get a 5xx and nothing mismatched or unauthorised reaches the upstream',
  'limits:silent-connection': 'issue 8.4: a connection that never starts a request is closed at headersMs',
  'limits:silent-response-not-cut': 'issue 8.4: inbound deadlines never cut a response in progress',
  'upstream:response-cap':
    'issue 8.3: an upstream answer over limits.maxResponseBytes (default 8 MiB) is cut off while streaming, both eras',
  'upstream:response-cap-boundary': 'issue 8.3: an answer just under the cap passes whole',
  'upstream:response-cap-lists': 'issue 8.3: an oversized tool list marks only its source unavailable',
  'upstream:guard-sse-framing':
    'issue 8.3/8.8: the guard reads SSE framing exactly (chunks, CRLF, priming events)',
  'upstream:guard-sse-per-event': 'issue 8.3: on event streams the cap is per event',
  'upstream:guard-not-mcp': 'issue 8.8: answers that are not MCP are recognised as such',
  'discovery:refresh-reaches-upstream':
    'issue 8.9: a refresh re-lists upstream in both eras; no client-side cache answers it',
  'discovery:name-grammar':
    'issue 8.7: only names in the MCP tool-name grammar, without "__", unique, are served',
  'discovery:skipped-reported': 'issue 8.7: skipped tools are reported in /agent/sources and the log',
  'upstream:lenient-tool-schemas':
    'issue 37.11: input schemas as published servers send them (no type, none, type array, PHP shapes) are normalised and listed, relay, SDK client and stdio',
  'upstream:lenient-tools-callable':
    'issue 37.11: a tool whose schema was normalised is callable in both eras and over stdio',
  'upstream:unusable-tool-skipped':
    'issue 37.11: a truly unusable tool is skipped with its reason in /agent/sources, logged once per change',
  'upstream:tool-list-refused-reason':
    'issue 37.11: a list that is not a tool list makes its source unavailable with last_error saying why',
  'upstream:lenient-schema-rules':
    'issue 37.11: each normalisation rule of the input schema, and what is refused',
  'upstream:tool-list-refused':
    'issue 37.11: a page that is not a tool list is refused in the gateway’s own words',
  'discovery:prototype-safe':
    'issue 8.7: Object.prototype names are ordinary tools; lookups are own-key only',
  'rest:lone-surrogate-input': 'issue 8.5: a lone surrogate in REST input never 500s a route',
  'rest:lone-surrogate-upstream': 'issue 8.5: upstream text with a lone surrogate is served as U+FFFD',
  'rest:body-newline': 'issue 8.16: REST bodies (TOON, JSON, errors) end with a newline',
  'cli:revoke-despite-unrelated-errors':
    'issue 8.13: key revoke works on any file that parses, with a warning',
  'cli:list-despite-unrelated-errors': 'issue 8.13: key list works on any file that parses, with a warning',
  'reload:revocation-from-rejected-file':
    'issue 8.13: deny wins — revocations in a rejected file reach the running gateway, nothing else does',
  'knowledge:answer-never-empty-with-sources':
    'issue 8.14: with sources retrieved the extractive answer never says nothing was found',
  'knowledge:answer-long-questions':
    'issue 8.14: sentence selection is relative to the best retrieved sentence',
  'knowledge:query-long-questions': 'issue 8.14: long natural questions get a cited answer end to end',
  'knowledge:code-ranks-below-prose':
    'issue 8.15: code blocks rank below prose and are never quoted as answer sentences (both stores)',
  'cli:pluralisation': 'issue 8.16: counts read "1 workspace", "2 workspaces"',
  'rest:mcp-config-client-syntax':
    "issue 8.16: each client snippet uses that client's documented variable syntax and says where the key comes from",
  'cli:address-in-use': 'issue 8.16: a busy port is named as host:port with how to pick another',
  'cli:start-failure-exits':
    'issue 21: a start that fails half-way (Redis open, PostgreSQL refused) exits 1 instead of hanging unready',
  'breaker:counts-fast-failures':
    'issue 8.8: 5xx and answers that are not MCP are classified at once and open the breaker, both eras',
  'breaker:ignores-answers': 'issue 8.8: a 4xx, a JSON-RPC error or a tool error never opens the breaker',
  // issue 10: shared state and limits
  'limits:gcra': 'issue 10: GCRA admits N per period smoothly; refusals change nothing',
  'limits:all-or-nothing': 'issue 10: a request refused by one rule is counted by none',
  'limits:quota-daily': 'issue 10: daily quotas reset at the UTC day; retries never add quota',
  'limits:contract': 'issue 10 / D6: one contract for the memory and Redis limiters',
  'limits:peek': 'issue 25: RateLimiter.peek reads rates and quotas without counting, memory and Redis alike',
  'limits:shared-exact': 'issue 10: replicas sharing Redis admit exactly N between them',
  'limits:redis-down-fallback':
    'issue 10: with Redis down each replica enforces its share and no request fails; sharing resumes',
  'operator:limits-passthrough': 'issue 10: Workspace and ApiKey limits in Kubernetes reach the gateways',
  'discovery:list-ttl':
    'issue 10: resource and prompt lists cached for the upstream ttlMs (0 never reused), one fetch per cold key',
  'discovery:shared-lists':
    'issue 10 test 2: resource lists shared by all replicas; ttlMs 0 prompt lists relayed each time; refresh drops them',
  'shared:redis-topologies':
    'issue 10: TLS, Sentinel and Cluster Redis work for limits, discovery, sessions and bridge forwarding',
  'discovery:single-flight': 'issue 10: one lister per cold key; the others wait for its result',
  'discovery:shared-cache':
    'issue 10 test 2: replicas share upstream lists through Redis: one list for a cold stampede, one per refresh',
  'upstream:shared-session':
    'issue 10 test 1: replicas share one 2025-era upstream session; a forgotten one is re-opened once for all',
  'discovery:list-changed-all-replicas':
    'issue 10 test 2: a list_changed from the upstream refreshes the shared tool list on every replica',
  'mcp:bridge-across-replicas':
    'issue 10 test 3: a bridged elicitation started on A continues on B; a replay on C (or A) is refused',
  'limits:replicas-exact':
    'issue 10 test 4: N per minute across three replicas: exactly N succeed, then 429 with Retry-After; retries add nothing',
  'limits:tool-call-quota':
    'issue 10: daily tool-call quotas count tools/call across replicas, not other requests',
  'limits:no-bypass':
    'issue 10: quotas count the 2025-era face and BOM-prefixed bodies; a non-UTF-8 body reaches no upstream',
  'limits:redis-stalled':
    'issue 10: Redis stalled (SIGSTOP) under load: zero failures, no hang; sharing resumes',
  'limits:redis-outage': 'issue 10 test 5: Redis killed under load: zero failed requests; sharing resumes',
  // issue 41 part 4: limits per tool and per identity
  'governance:tool-limit-rules':
    'issue 41.4: tool limits match namespaced tool names by glob, as key patterns; minute and hour are rates, day a UTC-day quota',
  'governance:tool-limit-identities':
    'issue 41.4: per subject counts each key and OAuth subject; per key each key or identity rule; per workspace all callers',
  'governance:tool-limit-key-names':
    'issue 41.4: tool-limit counter names hold digests only, under the workspace hash tag, bounded in length',
  'governance:tool-limit-admission':
    'issue 41.4: N calls then a refusal naming the limit; a refusal by one matching limit counts on none',
  'governance:tool-limit-schema':
    'issue 41.4: a tool limit without a rate, a repeated name, a bad pattern or scope is refused with its path',
  'governance:tool-limit-refusal-shape':
    'issue 41.4: a tool-limit refusal is 429 -31018 rate_limited with Retry-After and RateLimit fields, counted under a closed policy label',
  'governance:tool-limit-replicas-exact':
    'issue 41.4: two replicas on one Redis admit exactly N calls of a caller; the rest get 429 rate_limited naming the limit',
  'governance:tool-limit-redis-keys':
    'issue 41.4: tool-limit counters in Redis are digests under the workspace hash tag, bounded, expiring within their window',
  'governance:tool-limit-sdk-clients': 'issue 41.4: the SDK v2 and v1 (2025-era) clients are limited alike',
  'governance:tool-limit-call-tool': 'issue 41.4: call_tool counts on the same counter as a direct call',
  'governance:tool-limit-after-visibility':
    'issue 41.4: hidden, forbidden and header-refused calls count nothing; a hidden tool stays unknown at its limit',
  'governance:tool-limit-oauth-subject':
    'issue 41.4: per subject: each OAuth subject and each API key has its own counter',
  'crd:workspace-tool-limits':
    'issue 41.4: the Workspace CRD admits toolLimits and refuses one without a rate, a repeated name or an unknown scope',
  'governance:tool-limit-oauth-rule':
    'issue 41.4: per key: the OAuth callers one identity rule admits share a counter',
  // issue 11: the Helm chart
  // issue 13: the MCP hot path
  'mcp:call-list-floor':
    'issue 13: ttlMs 0 upstreams: tools/call decisions reuse a list within callListFloorMs, re-check refusals, single-flight',
  // issue 12: observability
  'otel:span-tree':
    'issue 12: one server span per request (route, workspace, key id) with upstream and search child spans',
  'otel:error-classes':
    'issue 12: an upstream failure and a rate-limit refusal carry their catalogue class in spans',
  'otel:propagation':
    'issue 12: the client traceparent is continued; the upstream gets the gateway context in _meta',
  'otel:db-spans': 'issue 12: Redis and PostgreSQL calls are child spans of the request, without statements',
  'otel:background-spans': 'issue 12: sync runs and config reloads are traced with counts only',
  'otel:prometheus':
    'issue 12: Prometheus metrics parsed with a real parser; labels bounded (no key ids, tools, queries)',
  'otel:operator-metrics':
    'issue 12: the operator exports leader status, queue depth and reconcile durations',
  'otel:no-content':
    'issue 12: exported spans and logs hold no key, credential, query, argument, result or session id',
  'otel:redaction-guard':
    'issue 12: the exporter guard drops captured statements, bodies and messages; the scan can fail',
  'image:built-daemonless':
    'issue 11: the image is built without a daemon; non-root, one entry point, production dependencies only',
  'ops:config-change-during-start':
    'issue 21: a config change while the knowledge store connects at start is served, not fatal',
  'ops:drain-zero-failures':
    'issue 21: stopped under keep-alive load, the gateway turns unready, answers with Connection: close, still serves new connections for drainDelayMs, finishes streams in flight, fails no request and ends within shutdownGraceMs',
  'ops:drain-cutoff-answers':
    'issue 21: calls still running as the shutdown grace runs out are cancelled upstream and answered not_ready, a stream with its last event',
  'config:drain-delay-below-grace':
    'issue 21: server.drainDelayMs defaults to 0 and must be less than shutdownGraceMs',
  'helm:graceful-termination':
    'issue 21: the chart sets a preStop sleep, drainDelayMs and a termination grace period that covers both and the shutdown grace',
  'image:runs-read-only': 'issue 11: the image runs as uid 65532 on a read-only root and drains on SIGTERM',
  'helm:lint': 'issue 11: helm lint --strict on the defaults and every ci/*-values.yaml',
  'helm:template-snapshot': 'issue 11: helm template output checked in and diffed',
  'helm:values-schema': 'issue 11: values.schema.json rejects wrong types and unknown keys',
  'helm:least-privilege': 'issue 11: the gateway Role only reads Secrets and ConfigMaps of its namespace',
  'helm:tenant-policy':
    'issue 20: one policy block for the operator file and the gateway config (rolls both); tenant roles aggregated to admin/edit/view without status writes; operator Events per scope',
  'helm:values-reference':
    'issue 11: the values reference table is generated from values.schema.json and diffed',
  'helm:crds-in-chart': 'issue 11: the chart ships exactly the generated CRDs',
  'helm:install':
    'issue 11: dry-run=server and a real install; kubectl auth can-i proves what the ServiceAccounts cannot do',
  'helm:serviceaccount-tokens':
    "issue 11: operator and gateway run with the chart ServiceAccounts' tokens and serve a first agent call",
  'helm:upgrade-uninstall':
    'issue 11: upgrade to HA values (cluster scope), uninstall removes the release, keeps CRDs',
  // issue 9: the gateway's Kubernetes config source (KubeConfigSource) and the rendered-object contract
  'kube:render-split': 'issue 9 / D16: a workspace is split over objects under 1 MiB; 20,000 keys work',
  'kube:fragment-prototype-safe': 'issue 9: fragments cannot pollute prototypes',
  'kube:base-no-workspaces': 'issue 9: with --kubernetes, workspaces come only from the API',
  'kube:assemble': 'issue 9: the gateway assembles workspaces and exposes the applied revision per workspace',
  'kube:partial-update-kept': 'issue 9: a half-written update keeps the last good version',
  'kube:per-workspace-last-good':
    'issue 9 / D17: an invalid workspace keeps its last good version; others move on',
  'kube:workspace-removed': 'issue 9: a deleted workspace stops being served',
  'kube:key-id-clash': 'issue 9: a key id identifies one key across workspaces',
  'kube:secret-ref': 'issue 9: credentials come from rendered Secrets; rotation changes the reference',
  'kube:revision-annotation': 'issue 9: stale parts of an older revision are ignored',
  'operator:identity-plan':
    'issue 29: Workspace spec.identity renders into an identity section the gateway contract accepts',
  'operator:identity-secret-only-in-credentials':
    'issue 29: the introspection client secret is only in the credentials Secret, as a reference elsewhere',
  'operator:identity-reach-refused':
    'issue 29: issuer, JWKS and introspection hosts the tenant policy denies render no identity (AddressNotAllowed)',
  'operator:identity-not-used':
    'issue 29: a missing Secret or an invalid spec.identity renders none and names the field',
  'operator:identity-reach-event':
    'issue 29: a refused spec.identity makes the Workspace Ready=False with its reason and a Warning Event',
  'operator:identity-status': 'issue 29: status.issuers counts the issuers served (printer column)',
  'kube:identity-accepted':
    'issue 29: gateways serve a rendered identity section and read its secret from the own Secret',
  'kube:identity-per-workspace':
    'issue 29: a bad identity section refuses only its workspace (D17), last good kept',
  'kube:identity-refs-own-secret':
    'issue 29: an identity secret reference outside the workspace’s own Secret is refused',
  'kube:identity-needs-oauth':
    'issue 29: identity without the admin’s oauth section refuses that workspace only',
  'kube:identity-introspection-clash':
    'issue 29: two workspaces may introspect only with distinct, non-overlapping token prefixes',
  'crd:workspace-identity':
    'issue 29: CEL refuses malformed spec.identity at apply; -o wide shows the Issuers column',
  'policy:identity-deny-by-default': 'issue 37.1-2: a policy without an identity part allows no issuer',
  'policy:identity-issuer-not-allowed':
    'issue 37.1-2: an issuer not listed for the workspace’s namespace is refused',
  'policy:identity-key-source-fixed':
    'issue 37.1: a tenant never pairs an issuer with a JWKS or introspection endpoint of its own',
  'policy:identity-fills-key-source':
    'issue 37.1: the policy’s JWKS/introspection endpoint is used when none given',
  'policy:identity-claims-anded':
    'issue 37.2: the admin’s per-namespace claim conditions are ANDed into every rule for the issuer',
  'policy:identity-workspace-dropped':
    'issue 37.1-2: a refused identity section is dropped from its workspace only; the rest is served',
  'policy:identity-schema':
    'issue 37.1-2: the identity policy refuses duplicates and claims for other namespaces',
  'operator:identity-default-deny': 'issue 37.1-2: the operator with no identity policy renders no identity',
  'operator:identity-issuer-not-allowed':
    'issue 37.1-2: the operator refuses an unlisted issuer (IssuerNotAllowed)',
  'operator:identity-own-jwks': 'issue 37.1: the operator refuses a tenant’s own JWKS (KeySourceNotAllowed)',
  'operator:identity-policy-rendered':
    'issue 37.1-2: the operator renders the policy’s JWKS and claim conditions into an allowed identity',
  'kube:identity-policy-default-deny':
    'issue 37.1-2: a gateway with no identity policy trusts no issuer of a rendered workspace',
  'kube:identity-policy-issuer-not-allowed':
    'issue 37.1-2: the operator refuses an unlisted issuer on a real API server, with a Warning Event',
  'kube:identity-policy-own-jwks':
    'issue 37.1: a tenant’s own JWKS for the company issuer is refused; its minted token is not admitted',
  'kube:identity-policy-rendered':
    'issue 37.2: the policy’s group condition narrows a catch-all rule (real oidc-provider)',
  'kube:identity-policy-own-keys':
    'issue 37.1: the gateway drops a rendered identity with a tenant’s own JWKS',
  'kube:identity-policy-claims': 'issue 37.2: the gateway ANDs the claim conditions and never logs them',
  'kube:identity-policy-later-revision':
    'issue 37.1-2: a later revision naming a disallowed issuer loses only its identity section',
  'policy:embedded-claims-narrow-catch-all':
    'issue 37.2: in a file with a policy block the admin’s group narrows a catch-all rule',
  'policy:embedded-own-keys-refused':
    'issue 37.1: in a file, a workspace’s own JWKS for a listed issuer is dropped',
  'policy:embedded-issuer-not-allowed':
    'issue 37.1-2: in a file, an unlisted issuer is dropped with a warning',
  'helm:policy-identity': 'issue 37.1-2: the chart renders policy.identity for the gateways and the operator',
  'helm:policy-identity-refusals': 'issue 37.1-2: malformed policy.identity values are refused',
  'helm:oauth-values': 'issue 29: the chart renders the admin’s oauth section from values, off by default',
  'helm:oauth-refusals':
    'issue 29: oauth.enabled needs oauth.resource; the values schema bounds the oauth values',
  'helm:monitoring-off': 'issue 25: the default values render no monitoring object and no metrics port',
  'helm:monitoring-on':
    'issue 25: service/pod monitors, the dashboard ConfigMap and the PrometheusRule render from their values; the metrics port is on without tracing',
  'helm:monitoring-refusals':
    'issue 25: a monitor without a metrics port, a malformed duration and an unknown monitoring key are refused',
  'helm:monitoring-runbooks': 'issue 25: every alert links its own section of docs/runbooks.md',
  'helm:monitoring-dry-run':
    'issue 25: the monitoring objects pass a server-side dry run against the prometheus-operator CRDs',
  'helm:monitoring-promtool-check': 'issue 25: promtool check rules accepts the rendered PrometheusRule',
  'helm:monitoring-promtool-test':
    'issue 25: promtool unit tests: each alert fires and stays silent when it should',
  'helm:monitoring-dashboard-promql': 'issue 25: every dashboard query parses as PromQL',
  'monitoring:dashboard-metrics':
    'issue 25: every dashboard panel has a data source and a query, and every metric and label it names is in a real gateway or operator scrape',
  'monitoring:rule-metrics': 'issue 25: every metric the alerts use is in a real gateway or operator scrape',
  'otel:shared-state-up':
    'issue 25: agw_shared_state_up is 1 with Redis, 0 once Redis is stopped, 1 again when it is back',
  'config:digest':
    'issue 25: the config digest is equal for the same config whatever the revision or listening address',
  'config:digest-kube':
    'issue 25: in the Kubernetes shape the digest covers the rendered revisions in any arrival order',
  'otel:config-digest':
    'issue 25: agw_config_digest is equal on replicas serving the same config (whatever their revisions) and changes with it',
  'kube:e2e-identity':
    'issue 29: a token signs in to a CR-defined workspace on two gateways; a changed claim condition revokes it within 2 s',
  'kube:identity-too-large':
    'issue 29: a workspace head (identity) too large for one object is refused at render',
  'crd:generated-up-to-date': 'issue 9: crds/ is generated from the zod schemas and checked in',
  'crd:conventions':
    'issue 9: structural schemas with descriptions and bounds, status subresource, columns, categories',
  'crd:examples-admitted': 'issue 9: the examples pass the real apiserver validation',
  'crd:cel-rejects': 'issue 9: invalid resources are refused at kubectl apply with the CEL/schema message',
  'crd:workspace-ref-immutable': 'issue 9: workspaceRef cannot change',
  'crd:explain-and-columns': 'issue 9: kubectl explain descriptions, printer columns, selectable fields',
  'kube:e2e-serve':
    'issue 9 e2e 1: kubectl apply of the examples → operator → two gateways serve tools, a call and search',
  'kube:e2e-revoke': 'issue 9 e2e 2: revoking an ApiKey makes every gateway refuse the key',
  'kube:e2e-missing-secret':
    'issue 9 e2e 3: a missing Secret is Ready=False without affecting the rest; creating it recovers',
  'kube:e2e-isolation': 'issue 9 e2e 6: cross-workspace isolation holds through the operator path',
  'kube:apiserver-outage':
    'issue 9 e2e 4: 30 s without the apiserver under load: zero failed requests; a later change is picked up',
  'kube:e2e-secret-rotation': 'issue 9: rotating a referenced Secret reaches the gateways within seconds',
  'kube:e2e-workspace-deleted':
    'issue 9: deleting a Workspace removes its keys from service and what was rendered for it',
  'operator:workload-hardening':
    'issue 40: every pod the operator runs is non-root 65532, read-only root, no privilege escalation, all capabilities dropped, RuntimeDefault seccomp, no ServiceAccount token, limits set, emptyDir /tmp',
  'operator:workload-bridge':
    'issue 40: a stdio server runs behind /agw/bridge, copied in by an init container of the operator image (agw-bridge --install), with the token Secret mounted read-only',
  'operator:workload-http':
    'issue 40: an image serving streamable-http gets the bridge as a proxy sidecar holding the token; Service and NetworkPolicy reach only the sidecar',
  'operator:workload-network-policy':
    'issue 40: the NetworkPolicy admits only the gateway pods to the port and lets out only cluster DNS and the listed CIDRs',
  'operator:workload-hash': 'issue 40: the same spec renders the same objects and content hash',
  'operator:workload-refusals':
    'issue 40: spec.run outside policy.workloads/network is refused (WorkloadsNotAllowed, ImageNotAllowed, ReplicasOverLimit, ResourcesOverLimit, EgressNotAllowed, SecretNotFound)',
  'operator:workload-rendered-source':
    'issue 40: a run source reaches the gateways as streamable-http to its Service with the workload mark and the minted token as bearer',
  'operator:workload-http-status':
    'issue 40: an HTTP image is reached with the minted token too (its proxy sidecar checks it)',
  'operator:workload-refused-not-rendered':
    'issue 40: a refused run source is left out of the render with its reason',
  'operator:workload-mark-not-from-tenant':
    'issue 40: a tenant spec can never carry the workload mark to the gateways',
  'workloads:pods':
    'issue 40: stdio and HTTP servers named by McpSource spec.run run as hardened pods on the node, are called through the gateway pods, their Services refuse callers without the minted token, and a replica deleted under load loses at most the calls in flight',
  'workloads:published-servers':
    'issue 40: images of published servers (npm server-memory and PyPI mcp-server-time over stdio, npm server-everything over HTTP), applied by a tenant as McpSources, are listed and called through the gateway pods with the SDK client; a write tool still needs a write key',
  'netpol:workload-egress-outside-profile':
    'issue 40: on a node that enforces NetworkPolicies, a workload pod cannot connect to a pod outside its permissions.egress',
  'netpol:workload-egress-api-server':
    'issue 40: on a node that enforces NetworkPolicies, a workload pod cannot connect to the API server (its Service or the node address)',
  'netpol:workload-cross-tenant':
    "issue 40: on a node that enforces NetworkPolicies, one tenant's workload cannot connect to another tenant's workload Service",
  'netpol:workload-egress-in-profile':
    'issue 40: on a node that enforces NetworkPolicies, a workload pod reaches the CIDR and port of its permissions.egress and resolves names through the cluster DNS',
  'netpol:workload-ingress':
    "issue 40: on a node that enforces NetworkPolicies, only the gateway pods reach a workload's Service port; the chart's own policies let other pods reach the gateway",
  'reach:workload-alias':
    'issue 40: a workload Service name that is a CNAME (a tenant-made ExternalName) or cannot be checked is refused, so the mark cannot be carried to another address',
  'reach:workload-mark':
    'issue 40: the gateway lets a marked source dial exactly its Service host:port in its own namespace; built-in ranges stay refused',
  'operator:workload-token-stable':
    'issue 40: the per-source token is minted once into an owned Secret, kept across reconciles and never logged',
  'operator:workload-idempotent':
    'issue 40: reconciling a workspace with a run source twice writes nothing the second time',
  'operator:workload-removed':
    'issue 40: a run source refused, deleted or changed to url has its Deployment, Service, NetworkPolicy and token Secret removed',
  'operator:workload-status':
    'issue 40: status.workload shows ready/desired replicas from the observed Deployment',
  'operator:scale-to-zero-controller':
    'issue 40: a scaleToZero source idle since creation or its last reported call renders zero replicas, a reported call brings them back, and the reconcile is requeued for when it falls idle',
  'operator:scale-to-zero-needs-wake-url':
    'issue 40: scaleToZero without the operator --wake-url is refused (WakeNotConfigured) and runs nothing',
  'operator:wake-no-oracle':
    'issue 40: the wake endpoint answers unknown sources, sources without scaleToZero, missing, Basic and wrong tokens with the same 401 and writes nothing; odd paths 404',
  'operator:wake-report':
    'issue 40: a wake report writes status.lastActiveTime, not again within 5 s while awake, every time while asleep',
  'operator:wake-wait':
    'issue 40: a waiting wake answers once the Deployment has a Ready pod, 504 after the wake time-out',
  'upstream:wake-on-refused':
    'issue 40: a gateway request whose connection is refused wakes the workload once (concurrent requests share it) with the source token, and is resent once it is Ready',
  'upstream:wake-touch-throttled': 'issue 40: calls are reported to the operator at most once per interval',
  'upstream:wake-no-resend-when-answered':
    'issue 40: an upstream that answers, even with an error status, is neither woken nor sent twice',
  'upstream:wake-timeout':
    'issue 40: a wake that does not get a Ready pod in time fails as upstream_timeout in fixed words, without the address',
  'upstream:wake-refused':
    'issue 40: an operator that refuses the wake or cannot be reached fails as upstream_unreachable, without its URL',
  'upstream:wake-abort': 'issue 40: a caller that gives up stops waiting for a wake at once',
  'upstream:wake-not-for-probes':
    'issue 40: a background probe of a failing source neither wakes a sleeping workload nor reports a call',
  'workloads:scale-to-zero':
    'issue 40: on the node an idle server goes to zero pods, a call through the gateway wakes it through the operator and is answered; one that cannot start fails its waking call in the wake time-out',
  'kube:workload-e2e':
    'issue 40: on a real apiserver an McpSource with run gets its Deployment, Service, NetworkPolicy and token Secret, owned and hardened; a second reconcile writes nothing; a disallowed image is refused with a condition and an Event',
  'kube:workload-crd-rules':
    'issue 40: the CRD refuses url with run, stdio without command, and env with both value and secretKeyRef',
  'operator:queue-dedupe': 'issue 9: the work queue deduplicates and re-runs a key changed while running',
  'operator:queue-backoff': 'issue 9: failing keys are retried with per-key exponential backoff',
  'operator:secret-readers':
    'issue 26: a Secret event re-enqueues only the workspaces whose last reconcile read that Secret (found or missing)',
  'operator:secret-readers-outside':
    'issue 26: Secret reads outside a reconcile or after leadership is lost record nothing',
  'operator:shared-dispatcher':
    'issue 26: the operator reuses one HTTP dispatcher per KubeConfig while its TLS settings hold (client-node makes one per request)',
  'operator:shared-dispatcher-settings': 'issue 26: TLS settings compare by content (Buffers by bytes)',
  'operator:one-connection':
    'issue 26: reconciling several workspaces on a real apiserver takes at most 3 connections',
  'operator:name-conflict':
    'issue 9: workspace names are global; the older Workspace wins, the other is told why',
  'operator:skip-unchanged': 'issue 9: unchanged workspaces cause no writes (content revision compared)',
  'operator:orphan-sweep': 'issue 9: rendered objects whose Workspace is gone are deleted (no GC needed)',
  'cli:key-hash': 'issue 9: key hash turns a key on stdin into keyId + keyHash for a bring-your-own ApiKey',
  'kube:e2e-bring-your-own-key':
    'issue 9: a bring-your-own ApiKey is served with no plaintext in the cluster',
  'operator:leader-failover': 'issue 9 e2e 5: the standby operator takes over the Lease and keeps rendering',
  // issue 9: the operator's reconcile core
  'operator:plan-valid':
    'issue 9: the operator renders CRs into a document the gateway config contract accepts',
  'operator:missing-secret-condition':
    'issue 9: a missing referenced Secret is a condition on that resource, not a crash',
  'operator:invalid-spec-condition': 'issue 9: an invalid resource gets Ready=False naming the field',
  'operator:data-source-refs': 'issue 9: data sources reference ready MCP sources; source names are shared',
  'operator:key-conditions':
    'issue 9: revoked/expired/pending keys are reported; revoked keys reach the gateways',
  'operator:postgres-connection-secret':
    'issue 9: connection strings come from Secrets and never appear in ConfigMaps',
  'embeddings:test-model-vectors':
    'issue 22: the test embedding model gives 384-number unit vectors, the same for the same input',
  'embeddings:test-model-batch-order': 'issue 22: a batch of inputs embeds like each input alone, in order',
  'embeddings:test-model-reference':
    'issue 22: the test model reproduces the cosines published for all-MiniLM-L6-v2',
  'embeddings:test-model-semantics': 'issue 22: similar sentences are closer than unrelated ones',
  'embeddings:test-server-errors':
    'issue 22: the test embeddings server answers bad input with 400 and a missing key with 401, as OpenAI does',
  'embeddings:test-model-throughput':
    'issue 22: the throughput of the test model on 128-token chunks is measured',
  'tools:disclosure-list':
    'issue 23: with toolDisclosure search, tools/list offers the gateway tools only; a key set to all lists every tool',
  'tools:find-and-call':
    'issue 23: a 2026 client finds a tool by task and calls it through call_tool and by name; mirrored params are derived',
  'tools:find-legacy': 'issue 23: a 2025-era client finds and calls tools the same way',
  'tools:read-key-no-write': 'issue 23: a read-only key neither finds nor calls a write tool',
  'tools:find-pattern-bound':
    "issue 23: a key's tool patterns bound what find_tools finds and call_tool calls",
  'tools:call-tool-shape':
    'issue 23: call_tool refuses nesting and malformed arguments; Mcp-Name names the calling tool; find_tools bounds limit',
  'tools:agent-tools-query':
    "issue 23: GET /agent/tools?query= ranks the key's tools; bad parameters are named 400s",
  'tools:terms-split': 'issue 23: tool names split on separators and camelCase, stemmed',
  'tools:lexical-ranking': 'issue 23: field-weighted BM25 ranks the tool that says the task first',
  'tools:view-only-statistics': 'issue 23: ranking statistics come from the view only',
  'tools:hybrid-default':
    'issue 23: hybrid by default with embeddings; tools embedded in the background, once; lexical while indexing',
  'tools:hybrid-changes': 'issue 23: changed tools re-embedded, unchanged never; a new model re-embeds all',
  'tools:hybrid-fallback':
    'issue 23: a failing provider falls back to words with its reason and pauses retries',
  'tools:indexer-follows-catalog':
    'issue 37: discovered tools are embedded before any search; new and changed tools re-embedded by digest, vectors of tools that left dropped',
  'tools:embedding-retry-backoff':
    'issue 37: a failing embeddings provider is retried on a timer with exponential, jittered, capped pauses; searches answer by words meanwhile',
  'tools:embedding-bounded-calls':
    'issue 37: tool embedding sends 32 texts per call, one pass per workspace, at most two calls at once',
  'tools:indexer-discovers-on-config-change':
    'issue 37: a workspace with embeddings that a config change adds or alters is discovered and embedded without a request',
  'tools:embedded-at-discovery':
    'issue 37: with the real model the first find_tools after discovery is hybrid, with no search before it',
  'tools:embedding-down-at-discovery':
    'issue 37: an embeddings endpoint failing at discovery gives the honest lexical fallback, and tool search recovers when it is back',
  'tools:long-description-indexed':
    'issue 37: a word past character 2,000 or 5,000 of a tool description finds the tool by words (indexed up to 65,536 characters)',
  'operator:tool-disclosure-passthrough':
    'issue 23: Workspace and ApiKey toolDisclosure reach the rendered workspace and the principal',
  'tools:query-bounds': 'issue 23: tool search query, limit and mode are validated and named',
  'tools:python-sdk-client':
    'issue 23: the Python SDK (PyPI mcp) lists only call_tool and find_tools, finds a tool by task and calls it, in both eras',
  'tools:python-sdk-read-key':
    'issue 23: with the Python SDK a read-only key neither finds nor calls a write tool',
  'tools:inspector-cli-client':
    'issue 23: the MCP Inspector CLI lists only call_tool and find_tools, finds a tool by task and calls it, in both eras',
  'tools:inspector-cli-read-key':
    'issue 23: with the MCP Inspector CLI a read-only key neither finds nor calls a write tool',
  'tools:retrieval-set':
    'issue 23: the tool-retrieval set (≥ 15 published servers, ≥ 300 real tools, ≥ 200 labelled user tasks) is valid',
  'tools:hybrid-live':
    'issue 23: with the real model find_tools and /agent/tools?query= rank by meaning once the tools are embedded',
  'tools:index-follows-discovery':
    'issue 23: a tool an upstream adds (tools/list_changed) is found by find_tools and callable through call_tool at once',
  'tenant:embedded-embeddings-refused':
    'issue 22: a workspace embeddings endpoint on a denied address is refused by the reach policy; search answers lexically with not_allowed',
  'tools:disclosure-limits':
    'issue 23: find_tools counts as a search, call_tool as a tool call, against the quotas',
  'mcp:listen-ack-first':
    'issue 24: subscriptions/listen acknowledges the honoured subset first, stamps subscriptionId, relays resources/updated, keeps alive',
  'mcp:listen-scoping':
    'issue 24: a key restricted to other sources or another workspace gets no update; an invisible URI is left out like an unknown one',
  'mcp:listen-shutdown': 'issue 24: shutdown ends open listen streams with the graceful complete result',
  'mcp:legacy-subscribe':
    'issue 24: a 2025 client subscribes, hears the update on its key-scoped GET /mcp stream, and unsubscribes',
  'mcp:legacy-subscribe-oracle':
    'issue 24: resources/subscribe for a source the key cannot see answers like an unknown resource',
  'limits:listen-caps':
    'issue 24: streams per key and URIs per stream are bounded; malformed filters are refused',
  'limits:listen-idle': 'issue 24: an idle listen stream ends gracefully',
  'limits:listen-access-lost': 'issue 24: a reload that revokes the key ends its notification streams',
  'limits:slow-consumer':
    'issue 24: a notification stream whose client stops reading is dropped past the queue cap',
  'subscriptions:cross-replica-listen':
    'issue 24: an update seen by one replica reaches a listen stream on another; one upstream subscription per replica',
  'subscriptions:cross-replica-legacy':
    'issue 24: a legacy subscription POSTed to one replica is delivered on the GET stream held on another',
  'oauth:metadata': 'issue 29: RFC 9728 metadata at both well-known forms, without a credential',
  'oauth:challenge-401': 'issue 29: 401 names resource_metadata and the first scopes on /mcp and REST',
  'oauth:challenge-invalid-token': 'issue 29: a bad token adds error="invalid_token" to the challenge',
  'oauth:sdk-login':
    "issue 29: the SDK v2 client signs in from a 401 (both eras) and sees exactly its identity's tools",
  'oauth:step-up': 'issue 29: a read identity steps up to write through 403 insufficient_scope (both eras)',
  'oauth:step-up-challenge': 'issue 29: the 403 challenge names every scope the call needs and the metadata',
  'oauth:no-workspace': 'issue 29: an identity no workspace admits gets a plain 403',
  'oauth:same-identity-two-workspaces':
    'issue 37 (D24): an identity two workspaces admit signs in to each at its own resource',
  'oauth:client-credentials': 'issue 29: a machine identity by client credentials lands in its workspace',
  'oauth:api-keys-unchanged': 'issue 29: API keys work unchanged with OAuth on',
  'oauth:mcp-config':
    'issue 29 follow-up: /agent/mcp/config for an OAuth caller describes the MCP sign-in (no key, no header); keys keep the key answer',
  'oauth:no-token-in-logs': 'issue 29: no access token or claim value reaches the log',
  'oauth:catch-alls-elsewhere':
    "issue 37.2/37.3 (D24): a token for R_a is admitted to a with other workspaces' catch-alls present, and another workspace's slow key server is never asked",
  'oauth:wrong-workspace-audience':
    'issue 37 (D24): a token for R_a at /w/b/mcp or /mcp is 401 invalid_token',
  'oauth:workspace-bound-key-id':
    'issue 37.1: the same issuer and subject make a different key id per workspace',
  'oauth:agent-routes-by-audience':
    'issue 37 (D24): /agent/* takes the one workspace resource a token names; two are refused',
  'oauth:pending-cap-per-workspace':
    "issue 37.1a: another workspace's forged identity filling the per-key cap leaves the real one's bridged calls untouched",
  'oauth:request-state-bound-to-workspace':
    'issue 37.1b: a requestState replayed from another workspace (same key id or not) is refused',
  'oauth:metadata-per-resource':
    "issue 37.8: each workspace's metadata names its resource and issuers only; unknown and identity-less workspaces are one 404",
  'oauth:sign-in-options-per-resource':
    "issue 37.8: the console's sign-in options and CSP show the default or the opened workspace's issuers only",
  'oauth:key-bound-to-workspace':
    "issue 37 (D24): another workspace's API key at /w/<name>/mcp is refused exactly like an unknown key",
  'oauth:encoded-workspace-paths':
    'issue 37 (D24): encoded and dotted workspace segments resolve to the decoded name or to no workspace',
  'oauth:default-workspace':
    'issue 37 (D24): the shared resource admits tokens for oauth.defaultWorkspace only, none without one',
  'oauth:workspace-resource-derivation':
    'issue 37 (D24): R_w = the shared resource without its /mcp, + /w/<name>/mcp; no caller text in a challenge',
  'oauth:select-workspace':
    'issue 37 (D24): the endpoint, the default workspace or the one workspace resource in aud selects the workspace',
  'oauth:metadata-documents':
    "issue 37.8: the shared metadata names the default workspace's issuers; each workspace's its own",
  'console:oauth-workspace-console':
    "issue 37.8 (D24): /w/<name>/console signs in to that workspace's own resource and talks to /w/<name>/mcp",
  'oauth:default-workspace-checked':
    'issue 37 (D24): a file config whose default names no workspace with identity is refused',
  'keycloak:sdk-login':
    'issue 29: a Keycloak user signs in with the SDK v2 client (code + PKCE) and sees its group’s read tools',
  'keycloak:scope-write': 'issue 29: the Keycloak mcp:write client scope gives a group member write',
  'keycloak:no-group': 'issue 29: a Keycloak user in no admitted group is refused',
  'keycloak:realm-roles': 'issue 29: a Keycloak realm role (realm_access.roles) admits its holder',
  'keycloak:client-credentials': 'issue 29: a Keycloak client-credentials token admits a machine identity',
  'keycloak:no-audience': 'issue 29: a Keycloak token without the gateway in aud is refused (invalid_token)',
  'keycloak:bearer-type': 'issue 29: Keycloak typ Bearer tokens are accepted only with tokenTypes: [jwt]',
  'keycloak:no-secret-in-logs':
    'issue 29: no Keycloak token, password, client secret or claim value in the gateway log or audit file',
  'upstream-oauth:client-credentials':
    'issue 29: OAuth client credentials for MCP sources (relay and SDK), resource = the upstream URL',
  'upstream-oauth:cached': 'issue 29: an upstream token is reused across calls',
  'upstream-oauth:refresh-before-expiry': 'issue 29: a token is replaced shortly before it expires',
  'upstream-oauth:401-refresh': 'issue 29: an upstream 401 costs one new token and the call succeeds',
  'upstream-oauth:401-twice': 'issue 29: a second 401 is reported in the upstream_authorization class',
  'upstream-oauth:wrong-client-secret': 'issue 29: a refused token request is upstream_token_unavailable',
  'upstream-oauth:as-failure': 'issue 29: an authorization server down, slow or answering garbage',
  'upstream-oauth:token-endpoint-reach': 'issue 29 / D19: a denied token endpoint is never dialled',
  'upstream-oauth:exchange-api-key':
    'issue 29: a token-exchange source refuses an API-key caller, no fallback',
  'upstream-oauth:http-datasource': 'issue 29: an http data source syncs with a client-credentials token',
  'upstream-oauth:single-flight': 'issue 29: concurrent hops share one token request',
  'upstream-oauth:exchange-keeps-sub': 'issue 29: RFC 8693 exchange keeps the user as sub, per subject',
  'upstream-oauth:exchange-per-subject-connection':
    'issue 29: a token-exchange source has a connection and upstream session per user',
  'upstream-oauth:no-leak': 'issue 29: no client secret or upstream token in logs or error messages',
  'upstream-oauth:cache-refresh-margin': 'issue 29: refresh a tenth of the lifetime (at most 30 s) early',
  'upstream-oauth:cache-single-flight': 'issue 29: one token request in flight per key',
  'upstream-oauth:cache-refused': 'issue 29: N hops refused together cause one refresh',
  'upstream-oauth:cache-bounded': 'issue 29: the token cache is a bounded LRU',
  'upstream-oauth:cache-failure': 'issue 29: a failed refresh keeps an unexpired token in use',
  'upstream-oauth:cap-at-caller-exp':
    'issue 29 follow-up: an exchanged token is cut to the caller token exp, never lengthened',
  'upstream-oauth:exchange-capped':
    'issue 29 follow-up: an exchanged token is not reused past the caller token exp; a fresh caller token gets a new exchange',
  'upstream-oauth:basic-encoding': 'issue 29: client_secret_basic form-encodes id and secret',
  'operator:upstream-oauth-render':
    'issue 29: McpSource/DataSource OAuth credentials render as references to the workspace Secret the gateway accepts',
  'operator:upstream-oauth-missing-secret':
    'issue 29: a missing client id/secret Secret or key leaves only that source out, naming the field',
  'operator:upstream-oauth-reach':
    'issue 29 / D19: a denied token endpoint or issuer is AddressNotAllowed before any Secret is read',
  'operator:upstream-oauth-reach-resolved':
    'issue 29 / D19: token endpoint and issuer host names are resolved before the policy decides them',
  'operator:upstream-oauth-invalid':
    'issue 29: an OAuth credential the gateway would refuse is InvalidSpec naming the field',
  'crd:upstream-oauth-credential':
    'issue 29: the CRDs take OAuth credentials from Secrets; CEL refuses bad combinations at apply',
  'kube:e2e-upstream-oauth':
    'issue 29: an McpSource with client credentials works through the operator and two gateways',
  'oauth:valid-control':
    'issue 29: a real token for this resource is accepted (the control for the refusals)',
  'oauth:wrong-audience': 'issue 29 / RFC 8707: a token minted for another resource is refused',
  'oauth:untrusted-issuer': 'issue 29: a token from an issuer no workspace trusts is refused with no fetch',
  'oauth:expired-not-yet-valid': 'issue 29: expired and not-yet-valid tokens are refused',
  'oauth:alg-none': 'issue 29: an unsigned (alg none) token is refused',
  'oauth:hs256-public-key': 'issue 29: HS256 keyed with the issuer public key is refused',
  'oauth:wrong-type': 'issue 29: a token not typed at+jwt is refused unless jwt is configured',
  'oauth:kid-storm': 'issue 29: 1,000 tokens with random kids cost at most one JWKS fetch',
  'oauth:jwks-misbehaving': 'issue 29: a slow, huge or failing JWKS answers 503 within the time-out',
  'oauth:idp-outage-jwks':
    'issue 29 follow-up: a JWKS that is down or slow is 503 + Retry-After (never invalid_token) on /mcp and /agent, audited; the same token works once it is back',
  'oauth:idp-outage-introspection':
    'issue 29 follow-up: a failing introspection endpoint is 503 + Retry-After, never invalid_token',
  'oauth:header-only': 'issue 29: tokens in a query string or cookie are ignored',
  'oauth:two-authorization-headers': 'issue 29: two Authorization headers are refused',
  'oauth:introspection':
    'issue 29 / RFC 7662: opaque tokens are introspected once, cached; unknown ones are inactive',
  'oauth:issuer-denied-address': 'issue 29 / D19: an issuer on a denied address is never fetched',
  'oauth:ways-around-no-leak': 'issue 29: no presented token or introspection secret reaches the log',
  'oauth:other-workspace-issuer':
    "issue 29: a genuine token of workspace A's issuer is refused (untrusted issuer) where only B's is trusted, and audited",
  'oauth:ways-around-audit-no-token':
    'issue 29: the audit files of the ways-around cases hold no presented token, whole or in 8-character pieces',
  'oauth:as-stall-timeout':
    'issue 29: an authorization server that never answers, or stalls its body, fails the request at its deadline and its socket is closed',
  'oauth:as-idle-closed':
    'issue 29: an idle connection to an authorization server is closed after 4 s, whatever Keep-Alive it asks for',
  'upstream-oauth:secret-rotation':
    'issue 29: a rotated upstream client secret is used at the next hop, the token cache keyed by a digest of it',
  'oauth:introspection-ttl-config':
    'issue 29: oauth.introspectionCacheTtlMs defaults to 30 s, accepts 0 to 300 s and refuses the rest naming the field',
  'oauth:introspection-ttl':
    'issue 29: a revoked opaque token is admitted only within the introspection TTL; a lowered TTL applies to cached answers',
  'oauth:introspection-ttl-reload':
    'issue 29: with a real authorization server, a revoked opaque token cached as active is refused at once after a reload to TTL 0',
  'oauth:claim-checks':
    'issue 37: exp/iat/nbf finite and within a year of now, iat within the skew, a non-empty subject',
  'oauth:claim-bounds-control':
    'issue 37: a token with sane time claims reads GET /agent/usage with its expiry',
  'oauth:absurd-exp-usage':
    'issue 37: a validly signed token with exp 1e20 or 1e400 is refused 401 (it made GET /agent/usage answer 500)',
  'oauth:time-claim-bounds':
    'issue 37: exp more than a year ahead, iat/nbf more than a year away, are refused',
  'oauth:iat-future': "issue 37: iat beyond the issuer's skew is refused, within it accepted",
  'oauth:empty-subject': 'issue 37: an empty or non-string sub, or an empty client_id subject, is refused',
  'oauth:introspection-claim-bounds':
    'issue 37: an introspection answer with an absurd exp or an empty sub is refused (and cached as refused)',
  'oauth:claim-bounds-no-leak': 'issue 37: no token of the claim-bounds tests reaches the log',
  'oauth:scope-charset-config':
    'issue 37: a scope condition, scopesSupported or challengeScopes outside the RFC 6749 scope-token charset is refused naming its path',
  'oauth:challenge-header-valid':
    'issue 37: for any scopes and descriptions (fast-check) the 401 and 403 challenges are valid, printable-ASCII header values',
  'oauth:scope-charset-step-up':
    'issue 37: a token scope with NUL, CR/LF, U+2028 or é gets a valid 403 step-up with its request id (it was a 500)',
  'oauth:scope-charset-rule':
    'issue 37: a write rule whose scope holds U+2028 is refused at load (it made the step-up a 500)',
  'oauth:introspection-storm':
    'issue 37: 3,000 random opaque tokens cost at most the per-issuer per-second budget in introspection calls (3,000 before), excess 503 + Retry-After; refused tokens repeat for free; an admitted token keeps its cached answer',
  'oauth:introspection-shape':
    'issue 37: opaque tokens no declaration could have issued (length, charset, prefix) are never sent to introspection',
  'oauth:introspection-storm-no-leak':
    'issue 37: no storm token nor the introspection secret reaches the log',
  'oauth:introspection-gate':
    'issue 37: per issuer at most maxConcurrent introspection calls in flight and perSecond new calls',
  'oauth:introspection-shape-rule':
    'issue 37: an opaque token is introspectable only as an RFC 6750 b64token of the declared length (≥ 16 by default) and prefix',
  'oauth:least-scope-challenge':
    'issue 37: without challengeScopes the 401 names the advertised scopes no write rule alone needs (mcp:read for examples/oidc.yaml)',
  'oauth:least-scope-rule':
    'issue 37: the derived challenge scope: explicit challengeScopes wins ([] too), shared scopes kept, every workspace counts, all-write names none',
  'oauth:least-privilege-sdk':
    'issue 37: the SDK v2 client registers by DCR, signs in with mcp:read only, gets the 403 step-up on a write call and the retry with mcp:write succeeds (both eras)',
  'oauth:least-privilege-capped-client':
    'issue 37: an authorization server capping a registered client at its registered scope refuses the step-up with invalid_scope (the documented edge case)',
  'audit:schema-closed': 'issue 29: an audit record never has a key outside its schema, whatever the input',
  'audit:tools-call':
    'issue 29: a tools/call leaves one record: who, workspace, source, tool by both names, decision, outcome',
  'audit:rest-actions': 'issue 29: source refresh, search and query leave records without the query text',
  'audit:legacy-era': 'issue 29: a 2025-era client session leaves a record per request, era legacy',
  'audit:auth-failures':
    'issue 29: missing, malformed, unknown, revoked and expired keys are denied records with their reason',
  'audit:permission-denials':
    'issue 29: write needed and invisible names are denied records; the caller still gets no oracle',
  'audit:rate-limited': 'issue 29: a rate-limit refusal is a denied record naming the requested tool',
  'audit:streamed': 'issue 29: a streamed (SSE) answer leaves exactly one record',
  'audit:bridged': 'issue 29: a bridged call and its retry leave one record each',
  'audit:client-gone': 'issue 29: a client gone mid-stream leaves exactly one record',
  'audit:no-content': 'issue 29: the audit file holds no argument, result, snippet, query text or key',
  'audit:sink-failure': 'issue 29: an unwritable audit sink drops and counts; requests are answered as usual',
  'audit:chart-routing':
    'issue 29: the chart routes the audit trail to stderr or a file followed by a sidecar',
  'audit:oidc-principal':
    'issue 29: an OAuth caller is recorded by issuer and subject; a token for another resource is a denied record',
  'audit:quota-exceeded':
    'issue 29: a daily quota refusal is recorded as quota_exceeded, a rate refusal as rate_limited',
  'audit:unauthenticated-method':
    'issue 29: a 401 on /mcp records the method its body or Mcp-Method names, only from the known list',
  'audit:gateway-request-id':
    'issue 37.7: two requests with one X-Request-Id get two gateway-minted ids; the caller’s id is kept as client_request_id',
  'audit:client-request-id-bounded':
    'issue 37.7: a caller id too long or outside the token charset is kept nowhere (audit, log)',
  'audit:console-requests':
    'issue 37.10: console page, file and metadata requests leave one audit record each; health probes none',
  'api:no-store-every-route':
    'issue 37.10: every route the running app lists answers Cache-Control no-store (console files: no-cache)',
  'api:no-store-errors':
    'issue 37.10: refusals, unknown paths, bad bodies and streamed /mcp answers are no-store too',
  'audit:refused-method-known-only':
    'issue 29: the method of a refused request is recorded only when it is a known MCP method',
  'audit:not-visible-tools':
    'issue 29: tools/call of a hidden tool (prefixed, bare, other source, knowledge tool) is recorded not_visible',
  'audit:not-visible-prompts-resources':
    'issue 29: prompts/get, resources/read and resources/subscribe of a hidden source are recorded not_visible',
  'audit:not-visible-search':
    'issue 29: REST search/query and the search tool narrowed to a hidden data source are recorded not_visible',
  'oauth:example-config':
    'issue 29 / 37: examples/oidc.yaml signs in a person from the 401 with mcp:read and a machine; both step up to write',
  'mcp:naming-unknown':
    'issue 24: a bare name no visible source has is Unknown tool / Resource not found; a read key still needs write',
  'mcp:naming-patterns': 'issue 24: key tool patterns match canonical names under every naming policy',
  'mcp:naming-python-sdk':
    'issue 24: the Python SDK lists, calls, gets and reads by an unprefixed source’s own names, both eras',
  'mcp:naming-collision':
    'issue 24: a name two unprefixed sources claim goes to neither; never reports it, auto prefixes it',
  'mcp:naming-reserved': 'issue 24: the gateway’s own tool names are never exposed bare for an upstream',
  'mcp:naming-disclosure': 'issue 24: find_tools and call_tool use an unprefixed source’s own names',
  'mcp:conformance-2025-06-18': 'issue 24: the published conformance suite with every session at 2025-06-18',
  'mcp:legacy-log-relay': 'issue 24: upstream log messages reach a 2025 caller on the call stream',
  'mcp:legacy-sampling-mid-call': 'issue 24: a 2025 caller answers sampling/createMessage mid-call',
  'mcp:legacy-elicitation-mid-call': 'issue 24: a 2025 caller answers elicitation/create mid-call',
  'mcp:legacy-no-capability':
    'issue 24: a 2025 client without the capability answers method-not-found, relayed upstream',
  'mcp:legacy-answer-bound':
    'issue 24: a mid-call answer is bound to key, call and question; every mismatch is one 400',
  'mcp:legacy-answer-timeout':
    'issue 24: an unanswered mid-call question ends the call and its upstream session',
  'mcp:legacy-client-gone': 'issue 24: a 2025 caller that leaves mid-call releases its upstream session',
  'mcp:legacy-pending-cap': 'issue 24: waiting mid-call questions count against the multi-round caps',
  'mcp:modern-log-relay': 'issue 24: modern callers get upstream logs at or above the request logLevel',
  'mcp:python-mid-call': 'issue 24: logging, sampling and elicitation mid-call through the Python SDK',
  'mcp:legacy-session-budget':
    'issue 24: at most legacyCallerSessionsPerSource dedicated sessions per source; the rest share',
  'operator:plan-prefix': 'issue 24: McpSource spec.prefix reaches the rendered source',
  'upstream-oauth:exchange-end-to-end':
    'issue 29: an OAuth caller reaches a tokenExchange upstream with its sub and an act claim',
  'upstream-oauth:exchange-api-key-e2e':
    'issue 29: an API-key caller of a tokenExchange source gets upstream_identity_required',
  'upstream-oauth:exchange-two-users': 'issue 29: two users get two exchanged tokens and sessions',
  'upstream-oauth:exchange-token-change':
    'issue 29: what the exchange cache does when the caller token changes',
  'upstream-oauth:exchange-no-leak': 'issue 29: no caller or exchanged token in logs or the audit file',
  'upstream-oauth:caller-token-sealed': 'issue 29: the caller token never serialises, prints or copies',
  'upstream-oauth:caller-token-handover': 'issue 29: auth and upstream agree on the caller-token symbol',
  'upstream-oauth:caller-token-forgotten': 'issue 29: the caller token is cleared when the response closes',
  'upstream-oauth:caller-token-only-for-exchange':
    'issue 29: the caller token is kept only for workspaces with an exchange source',
  'upstream-oauth:caller-token-grant-key':
    'issue 29: exchanged tokens are keyed by issuer, subject and scopes, never the token',
  'oauth:python-registration': 'issue 29: the Python SDK registers itself (DCR) and signs in',
  'oauth:python-no-secret-in-log': 'issue 29: the Python OAuth client prints no secret',
  'oauth:mapping-first-match': 'issue 29: the first matching identity rule of a workspace decides',
  'oauth:mapping-own-rules-only':
    "issue 37 (D24): a workspace admits by its own rules; another's catch-all neither captures nor makes ambiguous",
  'oauth:mapping-all-conditions': 'issue 29: every condition of a rule must hold',
  'oauth:mapping-claim-paths': 'issue 29: dotted claim paths read own properties only',
  'oauth:mapping-equals-contains': 'issue 29: equals and contains conditions',
  'oauth:mapping-scope-scp': 'issue 29: scope and scp count as one set',
  'oauth:mapping-subject': 'issue 29: a rule may name the subject',
  'oauth:mapping-step-up': 'issue 29: step-up names the scopes that would grant write',
  'oauth:mapping-principal': 'issue 29: the principal built for an identity',
  'oauth:jwks-single-flight': 'issue 29: one JWKS fetch in flight however many wait',
  'oauth:jwks-unknown-kid-waits': 'issue 29: an unknown kid waits for the refetch',
  'oauth:jwks-cooldown': 'issue 29: unknown kids refetch at most once per cooldown',
  'oauth:jwks-rotation-within-cooldown': 'issue 29: a rotated key within the cooldown',
  'oauth:jwks-stale-serves': 'issue 29: known keys keep working while a refetch fails',
  'oauth:jwks-unavailable': 'issue 29: an unreachable JWKS refuses the token',
  'oauth:jwks-bounds-keys': 'issue 29: a key set with too many keys is refused',
  'oauth:jwks-bounds-size': 'issue 29: an oversized key set is refused',
  'oauth:jwks-public-signing-only': 'issue 29: only public asymmetric signing keys are kept',
  'oauth:verified-cache-lifetime':
    'issue 29: a verified JWT is reused until its exp or 60 s, whichever is first',
  'oauth:verified-cache-expired': 'issue 29: an expired token is never kept as verified',
  'oauth:verified-cache-bounded': 'issue 29: the verified-token cache is bounded and keyed by digests',
  'console:browser-flow':
    'issue 25: in chromium the console signs in, shows sources, searches, answers, calls a tool, shows a refusal and signs out with no console error',
  'console:isolation-and-key-storage':
    "issue 25: a console session never shows or receives another workspace's data; the key stays in the tab's sessionStorage and the Authorization header",
  'console:static-headers':
    'issue 25: the console files carry the strict CSP and security headers and revalidate by ETag',
  'console:off-by-default': 'issue 25: without server.console.enabled /console is an unknown route',
  'console:oauth-csp':
    "console OAuth sign-in: with an oauth section the console's connect-src allows the trusted issuers' origins and nothing else; /console/callback serves the page",
  'console:oauth-sign-in':
    "console OAuth sign-in: in chromium through the provider's login and consent (DCR, PKCE, state, resource) back to that identity's workspace; the token only in sessionStorage and the Authorization header, never in a URL; sign-out forgets it",
  'console:oauth-state-checked':
    'console OAuth sign-in: a callback with a tampered state is refused and no code is exchanged',
  'console:usage-endpoint':
    "issue 25: GET /agent/usage in JSON and TOON: the caller's key and every rate and quota that applies to it",
  'console:usage-moves':
    'issue 25: usage moves with requests on any replica; rates count every request, quotas only their kind',
  'console:usage-refused-rate':
    'issue 25: a spent rate reads used = limit, remaining 0; /agent/usage counts against the caller’s rate',
  'console:activity-endpoint':
    'issue 25: GET /agent/activity in JSON and TOON: last hour by route and error class, per replica',
  'console:activity-read-key': 'issue 25: a read key sees the same workspace-level activity as a write key',
  'console:activity-sync':
    'issue 25: activity shows data-source sync state (documents, chunks, start, finish)',
  'console:data-isolation':
    'issue 25: usage and activity show only the key’s own workspace; no parameter reaches another',
  'console:data-no-content-in-logs': 'issue 25: the console endpoints log neither keys nor retrieved content',
  'console:activity-bounds':
    'issue 25: the activity recorder is bounded: closed routes, error classes and workspaces; slots recycled',
  'console:activity-buckets':
    'issue 25: one-minute buckets over the last hour with p50/p95 from a fixed histogram',
  'helm:console-value': 'issue 25: the chart value console.enabled renders server.console.enabled',
  'stdio-bridge:sdk-client':
    'issue 40: the v2 SDK client lists and calls tools of a published stdio server through agw-bridge, with progress',
  'stdio-bridge:initialize-cache':
    "issue 40: a second client's initialize is answered from the bridge's cache; both clients work at once with colliding ids",
  'stdio-bridge:auth':
    "issue 40: a missing or wrong bearer token is 401 with no detail; the server's environment lacks the token",
  'stdio-bridge:child-exit':
    'issue 40: a server process that dies answers pending calls 502 and the bridge exits non-zero',
  'stdio-bridge:gateway-source':
    'issue 40: the gateway fronts agw-bridge as an ordinary streamable-http source with a static bearer credential',
  'stdio-bridge:sigterm-drain':
    'issue 40: on SIGTERM the bridge turns unready, keeps serving for --drain-delay, lets an in-flight call finish, stops the server and exits 0',
  'stdio-bridge:go-unit-tests': "issue 40: the bridge's Go unit tests pass (go vet, go test)",
  'guardrails:mask-kinds':
    'issue 41.5: every credential kind (private keys, AWS, GitHub, GitLab, Slack, Stripe, Google, our own keys, JWTs, bearer tokens) is masked and counted',
  'guardrails:mask-no-false-positives':
    'issue 41.5: ordinary text, hashes, certificates and prose are not masked',
  'guardrails:mask-result-leaves':
    'issue 41.5: text content, structuredContent leaves, resource text and key-named values are masked; binary data is not; the original is not changed',
  'guardrails:mask-unterminated-key':
    'issue 41.5: a private key without its END line is masked to its first blank line',
  'guardrails:mask-deep-value': 'issue 41.5: a value nested past the walk bound is still masked',
  'guardrails:mask-linear':
    'issue 41.5: masking is linear on hostile input built to make backtracking quadratic',
  'guardrails:mask-upstream-results':
    'issue 41.5: credentials a real upstream returns are masked, in both eras',
  'guardrails:mask-knowledge-rest': 'issue 41.5: /agent/search snippets and /agent/query answers are masked',
  'guardrails:mask-knowledge-mcp': 'issue 41.5: the MCP search and get_document tools are masked',
  'guardrails:mask-off':
    'issue 41.5: governance.guardrails.maskSecrets: false turns masking off for a workspace',
  'guardrails:no-secrets-in-logs': 'issue 41.5: no credential, hook secret, argument or hook URL is logged',
  'guardrails:hook-signed-wire':
    'issue 41.5: hook requests are HMAC-signed and carry the documented body, no secrets',
  'guardrails:hook-deny': 'issue 41.5: a hook deny is a permission error with its reason; nothing is relayed',
  'guardrails:hook-rewrite-arguments':
    'issue 41.5: rewritten arguments reach the upstream (SDK path and byte-faithful relay with derived parameter headers)',
  'guardrails:hook-rewrite-result': 'issue 41.5: a response hook rewrites the result the caller sees',
  'guardrails:hook-stall-closed':
    'issue 41.5: a hook that times out with failure: closed refuses the call, naming the hook',
  'guardrails:hook-stall-open': 'issue 41.5: a hook that times out with failure: open lets the call through',
  'guardrails:hook-malformed-rewrite':
    'issue 41.5: a malformed rewrite is a hook failure; nothing is relayed',
  'guardrails:hook-reach-denied':
    'issue 41.5: a hook URL the tenant reach policy denies is never connected to',
  'guardrails:hook-reach-allowed': 'issue 41.5: a hook URL the policy allows for the workspace is used',
  'guardrails:item-hook-wire':
    'issue 41.5: resources/read and prompts/get hooks get a signed body naming the resource or prompt, with the read params or prompt arguments, then the result',
  'guardrails:item-hook-deny':
    'issue 41.5: a hook deny on resources/read and prompts/get is a permission error; nothing is relayed',
  'guardrails:item-hook-rewrite-arguments':
    'issue 41.5: the upstream receives the prompt arguments a request hook rewrote',
  'guardrails:item-hook-rewrite-result':
    'issue 41.5: response hooks rewrite the prompt messages and resource contents the caller sees',
  'guardrails:item-hook-stall-closed':
    'issue 41.5: a prompts/get hook that times out with failure: closed refuses it, naming the hook',
  'guardrails:item-hook-invisible':
    'issue 41.5: a resource or prompt of a source the key cannot see answers as before, and no hook is asked',
  'guardrails:item-hook-retarget':
    'issue 41.5: a rewritten read URI is relayed only within its source; pointing it at another source is a hook failure',
  'guardrails:item-rewrite-shapes':
    'issue 41.5: a rewrite of read params (one string uri) or prompt arguments (strings) of another shape is a hook failure',
  'guardrails:mask-items':
    'issue 41.5: credentials in resources/read contents and prompts/get messages are masked, in both eras',
  'operator:guardrails-plan':
    'issue 41.5: a hook secretKeyRef becomes a credentials-Secret reference, never in a ConfigMap',
  'operator:guardrails-fail-closed':
    'issue 41.5: a hook with a missing Secret or refused URL is still rendered (fails by its policy) and named',
  'operator:guardrails-secret-ref-only':
    'issue 41.5: the Workspace CRD takes a hook secret as a secretKeyRef only',
  'policy:modern-and-legacy-clients':
    'issue 41.3: CEL deny and allow rules over arguments decide tools/call alike for the SDK v2 (2026) and v1 (2025) clients, naming the rule',
  'policy:key-rules': "issue 41.3: an API key's own policies apply to it only, after its workspace's",
  'policy:call-tool': 'issue 41.3: the inner call of call_tool is decided by the same policies',
  'policy:oauth-claims':
    "issue 41.3: a rule reads an OAuth caller's token claims; a missing claim refuses the call (fail closed) without values",
  'policy:audit':
    'issue 41.3: the audit record of a refusal says reason policy and the rule name, never arguments',
  'policy:reload-refused':
    'issue 41.3: a rule that does not compile refuses the config with its path; the last good rules keep deciding',
  'operator:governance-rendered':
    'issue 41.3: valid Workspace spec.governance policies reach the gateway as written',
  'operator:governance-fail-closed':
    'issue 41.3: spec.governance the gateway would refuse renders one deny-all rule and names the path',
  'operator:key-policies':
    "issue 41.3: an ApiKey's valid spec.policies are rendered; a key with a broken rule is not served",
  'operator:governance-status':
    'issue 41.3: an invalid spec.governance makes the Workspace Ready=False (InvalidSpec) with the path',
  'crd:policies-bounded':
    'issue 41.3: the CRDs admit CEL policies on a Workspace and an ApiKey and bound them (maxLength, maxItems, one-line message, effect enum)',
  'pin:new-tools-held':
    'issue 41.1: under pin a tool without an approved digest is in no list and its call is refused with a stated reason; /agent/sources offers the digests, only for tools the key may see',
  'pin:approved-served':
    'issue 41.1: approving the offered digests in the config serves the tools to SDK clients of both eras',
  'pin:announced-change':
    'issue 41.1: a description changed with tools/list_changed is held (lists and calls) until its digest is approved; a key that cannot see it still gets Unknown tool; the log names the change, never the text',
  'pin:silent-change': 'issue 41.1: a change nobody announced is held at the next listing',
  'pin:warn-serves': 'issue 41.1: under warn an unapproved tool is served and reported (log, /agent/sources)',
  'pin:new-tool-added': 'issue 41.1: a tool added upstream at runtime is held under pin',
  'pin:cli-approve':
    'issue 41.1: agent-gateway tools approve shows the change and writes the digest the gateway offered into the config file',
  'pin:off': 'issue 41.1: pinning off serves every tool and reports nothing',
  'override:presented':
    'issue 41.2: overrides replace title, description and annotations in lists and decide the permission',
  'override:pinned-as-presented':
    'issue 41.2: pinning digests the presented definition: an overridden description hides an upstream change of it',
  'kube-pins:new-held':
    'issue 41.1: on a real API server with two gateways, McpSource status.pinning and an Event list the unapproved tools and digests',
  'kube-pins:approve-with-kubectl':
    'issue 41.1: kubectl patch of spec.pinning.approved serves the tools on both gateways and clears the status',
  'kube-pins:announced-change':
    'issue 41.1: a changed description is held on both gateways until approved with kubectl; status and Event say what changed',
  'kube-pins:warn':
    'issue 41.1: under warn a silent change is served and reported in the status, an Event and the agw_tools_unapproved gauge',
  'kube-pins:only-gateways-report':
    "issue 41.1: the operator accepts pinning reports only with the gateways' ServiceAccount token for its audience, and refuses malformed or huge ones",
  'pins:canonical':
    'issue 41.1: the definition digest ignores key order and unpinned fields and changes with any pinned field',
  'pins:what-changed':
    'issue 41.1: a changed tool names the fields that differ from the approved definition seen, else none',
  'pins:report-writes-status':
    'issue 41.1: a gateway report becomes the McpSource status.pinning and a Warning Event naming the change and the digest',
  'pins:report-unchanged':
    'issue 41.1: a report the status already shows writes no status and records no Event',
  'pins:report-refusals':
    "issue 41.1: the operator refuses reports without the gateways' user (401), for unknown sources (404) and malformed ones (400), and reviews a token once a minute",
  'pins:review-unavailable':
    'issue 41.1: an API server that cannot review a token makes the report 503, and the failure is not remembered',
  'user-oauth:modern-url-elicitation':
    'issue 42: a 2026 client without a connection gets an input_required URL elicitation; after consent its retry is served with its own grant',
  'user-oauth:legacy-url-elicitation':
    'issue 42: a 2025 client gets -32042 with data.elicitations in URL mode; after consent its retried call is served as itself',
  'user-oauth:each-user-their-own':
    'issue 42: every principal uses its own grant; one without a connection is asked, and a client without URL elicitation gets the link in a tool error',
  'user-oauth:reads-need-a-connection':
    'issue 42: resources/read and prompts/get of a user source ask for the connection like tools/call, in both eras',
  'user-oauth:retry-state-bound':
    'issue 42: the retry requestState is sealed to workspace, caller, source and tool; the gateway strips it before relaying',
  'user-oauth:callback-refusals':
    'issue 42: a consent callback from another browser, a replayed or forged one, and a ticket used by another caller are refused',
  'user-oauth:revoke-own': 'issue 42: a user revokes their own connection; the next call asks again',
  'user-oauth:refresh-rotation':
    'issue 42: an expiring access token is refreshed once for concurrent calls and a rotated refresh token replaces the old',
  'user-oauth:revoked-grant':
    'issue 42: a refresh the authorization server refuses deletes the connection and the user is asked again',
  'user-oauth:tokens-stay-secret':
    'issue 42: no upstream token in logs, the audit trail or the store at rest',
  'user-oauth:survives-restart': 'issue 42: connections in the SQLite store survive a restart (same keys)',
  'operator:user-credential-render':
    'issue 42: an McpSource credential of type user renders with or without a client of its own',
  'helm:user-connections':
    'issue 42: the chart renders publicUrl and the PostgreSQL connection store with its key Secret',
  'user-oauth:python-modern':
    'issue 42: the Python SDK on 2026-07-28 answers the URL elicitation through its callback and is served as the user',
  'user-oauth:python-legacy':
    'issue 42: the Python SDK on 2025-11-25 gets -32042 with the URL elicitation, and its retry is served as the user',
  'user-oauth:replicas-shared-connection':
    'issue 42: a connection made through one replica serves on another',
  'user-oauth:replicas-revoke-own': 'issue 42: a revocation on one replica holds on another within a second',
  'user-oauth:replicas-admin-revoke':
    "issue 42: `agent-gateway connections revoke` removes a source's connections for every replica",
  'user-oauth:replicas-one-refresh':
    'issue 42: concurrent calls on two replicas after expiry cause exactly one refresh (rotating refresh tokens)',
  'user-oauth:replicas-callback-any-replica':
    'issue 42: a consent started on one replica completes on another, once',
  'console:connections-connect-revoke':
    "issue 42: the console's Connections view connects a source through the browser and revokes it",
  'console:connections-link-signed-in':
    'issue 42: an elicitation link opened in the console signed in as its caller ends connected',
  'console:connections-oauth-link': 'issue 42: an elicitation link survives the OAuth sign-in round trip',
  'user-oauth:vault-rotation':
    'issue 42: grants sealed under an old key open while it is configured and are resealed under the first key',
  'user-oauth:vault-row-binding': 'issue 42: a sealed grant or value copied to another row opens nowhere',
  'apps:prefix-always':
    'issue 43: under prefix always, tool ui:// links and UI resources are ui://<source>__…, listed and read back with HTML, MIME type and _meta.ui intact (2026 and 2025 upstreams, three clients)',
  'apps:prefix-never':
    "issue 43: under prefix never, tool links and UI resources keep the upstream's own ui:// URIs and read back intact",
  'apps:odd-uri':
    "issue 43: an upstream ui:// URI spelt like the gateway's form is never exposed bare; its namespaced form reads it verbatim",
  'apps:auto-collision':
    'issue 43: under auto, a ui:// URI (listed or only linked) that two visible sources claim is namespaced for both; one source alone keeps it bare',
  'apps:not-visible':
    'issue 43: a key that cannot see a source reads its ui:// URI exactly like one no source has',
  'apps:capability-forwarded':
    "issue 43: a 2026 client's ui extension reaches a 2026 upstream as declared; a 2025 client's is declared for it; 2025 upstream sessions declare it",
  'trace:meta-format-strict':
    'issue 43: _meta traceparent/tracestate/baggage are taken only when valid W3C values within bounds; a bad one is dropped',
  'trace:meta-continues-modern':
    "issue 43: an SDK v2 client's _meta trace context (no header) parents the gateway's MCP server span and the upstream hop",
  'trace:meta-continues-legacy': "issue 43: a 2025 client's _meta trace context is continued the same way",
  'trace:meta-upstream-child':
    "issue 43: 2026 and 2025 upstreams get the gateway's context (header and _meta) in the client's trace, the gateway's span as parent",
  'trace:meta-over-header':
    'issue 43: _meta trace context wins over the traceparent header for the MCP request; the header keeps the HTTP span',
  'trace:meta-malformed-ignored':
    'issue 43: malformed or oversized _meta trace context starts a fresh trace, the call succeeds, nothing is logged',
  'trace:meta-untraced-passthrough':
    "issue 43: with telemetry off the client's valid _meta trace keys reach the upstream, malformed ones do not",
  'tasks:discover':
    'issue 43: server/discover advertises the 2026 tasks extension to a key that may see a task-capable source, and only then',
  'tasks:poll-to-completion':
    'issue 43: a task-augmented tools/call comes back as a task with a sealed id; tasks/get polls it to its completed result',
  'tasks:cancel':
    'issue 43: tasks/cancel reaches the owning upstream and tasks/get then reports the task cancelled',
  'tasks:other-key-not-found':
    "issue 43: another key of the workspace and a key of another workspace get the unknown-task error for a key's task",
  'tasks:forged-id':
    'issue 43: forged, tampered, malformed and oversized task ids answer exactly like an unknown task',
  'tasks:two-replicas':
    'issue 43: a task created on one replica is polled and cancelled on another sharing the Secrets',
  'tasks:no-task-support':
    'issue 43: a client asking for a task of a source without tasks (or not declaring them) gets the complete result',
  'tasks:result-masked':
    "issue 43: a completed task's result returned by tasks/get is masked like a direct call's",
  'tasks:seal-binding':
    'issue 43: a sealed task id opens for its workspace and key only, before its expiry, and hides the upstream id',
  'tasks:seal-rotation':
    'issue 43: task ids sealed under an old shared-state key open while it is configured',
  'tasks:tool-no-longer-visible':
    "issue 43: once a key's tool patterns no longer match a task's tool, its task answers like an unknown task",
  'tasks:ext-tasks-client':
    'issue 43: @modelcontextprotocol/ext-tasks over an SDK v2 client settles a task through the gateway and cancels one',
  'tasks:audit':
    "issue 43: tasks/get and tasks/cancel are audited by name with source and tool; another key's attempt names neither",
  'tasks:legacy-capability':
    'issue 43: initialize declares 2025 tasks (call, cancel; no list) to a key that may see a task source; tools/list says execution.taskSupport per tool',
  'tasks:legacy-client-poll':
    'issue 43: the SDK v1 client (2025 experimental tasks) runs a task of a 2026 upstream to its result through the gateway',
  'tasks:legacy-cancel':
    'issue 43: a 2025 tasks/cancel cancels upstream and answers the cancelled Task; cancelling an ended task is the 2025 terminal-status error',
  'tasks:legacy-isolation':
    "issue 43: on the 2025 face another key's, another workspace's, a forged and an unknown task id all answer like an unknown task",
  'tasks:legacy-held':
    'issue 43: a source that answers in full gives a 2025 client that asked for a task a finished task whose result the gateway holds',
  'tasks:legacy-tool-error':
    'issue 43: an isError tool result is a failed task to a 2025 client, and tasks/result gives that result',
  'tasks:update-input-required':
    "issue 43: a task's input requests reach the 2026 client; tasks/update answers them at the owning upstream and the task completes; another key's update is not found",
  'trace:task-links':
    'issue 43: tasks/get and tasks/cancel (2026) and tasks/get (2025) link to the span of the tools/call that created the task',
  'tasks:ledger-bound':
    'issue 43: the task ledger twin gives an owner at most server.tasks.maxPerKey places; a refused slot takes nothing',
  'tasks:ledger-expiry': 'issue 43: a task place stops counting at its end, without a release',
  'tasks:ledger-release':
    'issue 43: a released task place is free again and the result held under it is gone',
  'tasks:ledger-extend':
    "issue 43: extend moves a known task place's end; an unknown or expired slot is left alone",
  'tasks:ledger-held':
    'issue 43: a held result reads back (a copy) until its end and keeps its place taken until then',
  'tasks:ledger-owners': 'issue 43: task places and held results belong to one workspace and key',
  'tasks:ledger-no-growth':
    'issue 43: the task ledger twin drops expired places and owners, also of owners that never return',
  'tasks:ledger-contract-bound':
    'issue 43: twin and Redis ledger alike: max places per owner, refusals take nothing, expired places never count',
  'tasks:ledger-contract-release-extend':
    'issue 43: twin and Redis ledger alike: release frees a place and drops its result; extend moves a known end only',
  'tasks:ledger-contract-held':
    'issue 43: twin and Redis ledger alike: a held result reads back until its end, holds its place, and needs a place',
  'tasks:ledger-contract-owners':
    "issue 43: twin and Redis ledger alike: another workspace or key neither sees nor frees an owner's places",
  'tasks:ledger-replicas':
    'issue 43: two replicas share one task count through Redis, also racing for the last places',
  'tasks:ledger-redis-opaque':
    'issue 43: Redis holds no workspace, key id, slot or held result in clear, every ledger key expires, a moved result does not open',
  'tasks:ledger-redis-down':
    "issue 43: with Redis killed or stalled the task ledger falls back to the replica's own, without throwing, logged once",
  'tasks:config':
    'issue 43: server.tasks defaults (100 places per key, 1 MiB held results for 10 min), ranges and unknown fields refused by path',
  'tasks:legacy-upstream-declared':
    'issue 43: a 2025-era upstream declaring tasks.requests.tools.call gets legacyTasks on its pooled connection and counts as task-capable; one without does not',
  'tasks:legacy-upstream-poll-to-completion':
    "issue 43: a 2025 upstream's task-augmented call creates a task; tasks/get then tasks/result give the result without related-task meta, all in the pooled session",
  'tasks:legacy-upstream-no-ttl':
    'issue 43: a task-augmented call to a 2025 upstream without a ttl carries `task: {}`',
  'tasks:legacy-upstream-plain-tool':
    'issue 43: a 2025 upstream lists execution.taskSupport; a task-augmented call of a tool without task support is its -32602',
  'tasks:legacy-upstream-iserror-completed':
    'issue 43: a 2025 task that failed with an isError tool result reads as completed with that result',
  'tasks:legacy-upstream-failed-error':
    'issue 43: a 2025 task whose tasks/result is a JSON-RPC error reads as failed with {code, message}',
  'tasks:legacy-upstream-cancel':
    "issue 43: cancelling a 2025 upstream's running task cancels it; cancelling a finished one is no error",
  'tasks:legacy-upstream-unknown-id':
    'issue 43: an unknown task id at a 2025 upstream is UpstreamRpcError -32602 (get, cancel, tasks/result)',
  'tasks:legacy-upstream-session-bound':
    "issue 43: a 2025 upstream's task is invisible to another upstream session and visible to a replica joining the shared session",
  'tasks:legacy-upstream-trace-meta':
    "issue 43: the gateway's trace context reaches a 2025 upstream in _meta of the task call and of tasks/*",
  'tasks:legacy-upstream-deadline': 'issue 43: a 2025 task request honours its time-out and its abort signal',
  'tasks:legacy-upstream-view-mapping':
    'issue 43: a 2025 Task maps to the 2026 TaskView (ttl→ttlMs, pollInterval→pollIntervalMs, no id or unknown fields)',
  'tasks:legacy-upstream-input-required': 'issue 43: a 2025 input_required task shows as working',
  'tasks:legacy-upstream-bounded':
    'issue 43: strings from a 2025 task are bounded; a bad status, timestamp or task id is a protocol error',
  'tasks:legacy-upstream-creation':
    'issue 43: a 2025 {task} answer is a task with its upstream id; anything else is a complete result',
  'tasks:legacy-upstream-related-meta':
    'issue 43: the related-task _meta of a 2025 tasks/result is stripped, other _meta kept',
  'tasks:legacy-upstream-outcome':
    "issue 43: a terminal 2025 task's outcome comes from tasks/result (result → completed, error → failed, -32602 → not found)",
  'tasks:legacy-upstream-cancel-rules':
    "issue 43: a 2025 cancel's -32602 is no error for a terminal task and stays one for an unknown or running task",
  'tasks:legacy-upstream-discover':
    'issue 43: a 2025 upstream with experimental tasks makes the gateway offer tasks on both faces; tools/list passes its taskSupport',
  'tasks:legacy-upstream-modern-client':
    "issue 43: a 2026 client (ext-tasks) runs a 2025 upstream's task to its result and cancels another, every task request on the upstream's one session",
  'tasks:legacy-upstream-modern-raw':
    "issue 43: a 2025 upstream's tasks in 2026 form on the wire: CreateTaskResult, DetailedTask, isError completed, failed with its error, another key not found",
  'tasks:legacy-upstream-legacy-client':
    "issue 43: a 2025 client (SDK v1) runs a 2025 upstream's task through the gateway with its ttl, cancels another; another key cannot see either",
  'tasks:legacy-upstream-no-task-tool':
    'issue 43: a tool without task support answers in full; a 2025 client that asked gets a finished task holding the result',
  'tasks:replicas-legacy-upstream':
    "issue 43: a 2025 upstream's task made through one replica is followed and cancelled through the other, on the one shared upstream session",
  'tasks:replicas-held':
    "issue 43: a 2025 client's held result made on one replica is read on the other, and only by its key",
  'tasks:replicas-bound':
    'issue 43: the per-key task bound is one count across replicas; past it a task-asking call is refused like a rate limit, plain calls and other keys are not; a cancelled task frees its place',
  'tasks:asks-per-era':
    "issue 43: a request asks for a task by its own era's form only (2026 extension declared, 2025 params.task)",
  'tasks:creation-sealed':
    "issue 43: an upstream task comes back under a sealed id in each face's form (2026 flat, 2025 {task}) and keeps its ledger place",
  'tasks:creation-bound':
    'issue 43: past the per-key bound a task-asking call is refused (429 rate_limited) before the upstream is called; plain calls are not counted',
  'tasks:creation-release':
    "issue 43: a failed call and a 2026 client's full answer give the task place back",
  'tasks:creation-held':
    "issue 43: a 2025 client's full answer becomes a finished task holding the result (isError as failed); a result larger than heldResultMaxBytes is refused",
  'tasks:creation-unasked-task':
    'issue 43: a task answered to a call that did not ask for one is an upstream_protocol_error',
  'tasks:faces':
    'issue 43: 2025 task statuses and fields from the one internal form; ttl clipped to the sealed id life',
  'tasks:legacy-task-support':
    "issue 43: on the 2025 face a task source's tool may run as a task (the upstream's own taskSupport kept); other tools may not",
  'tasks:listen-notifications':
    "issue 43: subscriptions/listen with taskIds acknowledges only the key's own ids and sends notifications/tasks on each change until the task completes; without the extension declared it is -32021",
  'openapi:path-styles':
    'issue 44: path parameters in simple, label and matrix style, exploded or not, give the OpenAPI style table for a string, an array and an object',
  'openapi:path-base':
    "issue 44: an operation's path is appended to the base URL's path (not resolved); numbers and booleans as JSON writes them; a bad base URL is the admin's error",
  'openapi:path-encoding':
    'issue 44: /, ?, #, %, backslash and unicode in a path value are percent-encoded (UTF-8) and the segment count stays',
  'openapi:path-traversal':
    'issue 44: a path value that is or decodes to a dot segment (., .., %2e forms, ../, ..\\, unicode dots after NFKC) is refused',
  'openapi:path-traversal-styles':
    'issue 44: label style and several expressions in one segment cannot make a dot segment; a URL the parser changed is refused',
  'openapi:path-refusals':
    'issue 44: a missing, empty, control-character, non-primitive or over-long path value is refused without echoing it',
  'openapi:query-styles':
    'issue 44: query parameters in form, spaceDelimited, pipeDelimited and deepObject style give the OpenAPI style table',
  'openapi:query-values':
    'issue 44: query values are percent-encoded, optional ones left out when absent or null, required ones refused when missing',
  'openapi:query-allow-reserved':
    'issue 44: allowReserved keeps reserved characters and %XX but still encodes & = + # [ ] and a bare %',
  'openapi:query-deep-object':
    'issue 44: deepObject nests brackets for nested objects, repeats the key for arrays, skips nulls, and bounds the depth',
  'openapi:header-params':
    'issue 44: header parameters in simple style; accept set by the builder; a required header must be given',
  'openapi:header-injection':
    'issue 44: a header value with CR, LF, NUL, other controls or non-ASCII, or longer than the bound, is refused',
  'openapi:header-reserved':
    'issue 44: header parameters naming credentials, framing, hop-by-hop, forwarding or trace headers (or not a token) are never sent',
  'openapi:cookie-params': 'issue 44: cookie parameters become one bounded Cookie header with encoded values',
  'openapi:body-json':
    'issue 44: JSON request bodies with their media type; a missing required body is refused',
  'openapi:body-form':
    'issue 44: form bodies: primitives as text, arrays of primitives as repeated keys, objects as JSON text',
  'openapi:body-text': 'issue 44: text/plain bodies take a string or primitive, not an object',
  'openapi:result-json':
    'issue 44: a 2xx JSON answer is structuredContent (arrays and primitives wrapped as {result}) plus its compact text',
  'openapi:result-json-bounds':
    'issue 44: long JSON text is cut with a note; invalid, cut or too-deep JSON is text only',
  'openapi:result-text':
    'issue 44: text answers decoded by charset with U+FFFD for bad bytes; empty and 204 answers say no content',
  'openapi:result-binary':
    'issue 44: small images are image content; large, cut or other binary answers are a note with type and size',
  'openapi:result-error':
    'issue 44: a non-2xx answer is isError with the status and its reason, a JSON body compacted',
  'openapi:result-error-bounded':
    'issue 44: an error shows at most the first 2,000 characters of the body and says when the answer was cut',
  'openapi:result-total': 'issue 44: httpToolResult never throws, whatever the answer',
  'openapi:petstore-tools':
    "issue 44: the Petstore's operations become tools named by operationId, GET read-only, parameters with styles, JSON and form bodies; its multipart upload is skipped with the reason",
  'openapi:yaml-document': 'issue 44: a YAML document gives the same catalogue as its JSON form',
  'openapi:every-example-loads':
    'issue 44: every @readme/oas-examples 3.0 and 3.1 document loads; only bodies calls cannot send are skipped',
  'openapi:circular-refs-cut':
    'issue 44: a circular schema is written out once and cut where it recurs, with a note naming the ref',
  'openapi:parameter-styles':
    "issue 44: parameter styles and explode as the document gives them, else OpenAPI's default per location",
  'openapi:servers':
    'issue 44: server variables take their defaults; path- and operation-level servers go with their tools; no servers is `/`',
  'openapi:openapi-3.1': 'issue 44: OpenAPI 3.1 documents load',
  'openapi:github-document':
    "issue 44: GitHub's 1,223-operation document loads with the default limits; 1,222 tools, its octet-stream upload skipped",
  'openapi:deterministic-order':
    'issue 44: tools sorted by path then method; the same text gives the same (frozen) catalogue',
  'openapi:external-ref-refused':
    'issue 44: an external $ref (file or URL) refuses the document, names the ref, and nothing is read or fetched',
  'openapi:fan-out-refused':
    'issue 44: refs that fan out past maxExpandedBytes (billion laughs) refuse the document before validation',
  'openapi:fan-out-skips-operation':
    'issue 44: an operation whose input schema passes maxInputSchemaBytes (fan-out, giant enum or string) is skipped; the others are tools',
  'openapi:recursive-refs':
    'issue 44: self, direct and mutual recursive refs are cut where they recur, never expanded forever',
  'openapi:schema-depth-skipped':
    'issue 44: an input schema nested past maxSchemaDepth (inline or through refs) skips its operation',
  'openapi:document-too-large':
    'issue 44: a document past maxDocumentBytes is refused before parsing, with both sizes in the condition',
  'openapi:too-many-operations':
    'issue 44: more operations than maxOperations (before any filter) refuse the document',
  'openapi:version-refused':
    'issue 44: Swagger 2.0, OpenAPI 3.2 and versionless documents are refused by name',
  'openapi:not-json-or-yaml': 'issue 44: text that is not JSON or YAML, or not an object, is refused',
  'openapi:nesting-and-alias-bombs':
    'issue 44: deep nesting and YAML alias bombs are refused without a stack overflow',
  'openapi:invalid-document':
    'issue 44: a document @readme/openapi-parser rejects is refused with its first errors',
  'openapi:proto-keys':
    'issue 44: __proto__ and constructor keys stay plain own data in tools; nothing reaches a prototype',
  'openapi:tool-names':
    'issue 44: tool names from operationId (sanitized, 64 characters) or method and path, duplicates numbered deterministically',
  'openapi:names-stable-under-filter': 'issue 44: a filter or a skipped operation never renames another tool',
  'openapi:argument-names':
    'issue 44: one argument per parameter, unique across locations, operation-level winning; `body` never clashes',
  'openapi:header-parameters':
    'issue 44: Accept, Content-Type and Authorization parameters are ignored; framing headers, bad names and content-described parameters skip the operation',
  'openapi:operation-filter':
    'issue 44: the filter (tags, methods, path globs, operationIds) keeps operations that pass every list; filtered ones are not skipped',
  'openapi:path-globs': 'issue 44: path globs: `*` within a segment, `**` across, the rest literal',
  'openapi:read-only-overrides':
    "issue 44: readOnlyHint from the method unless the admin's readOnly or write list says otherwise (write wins)",
  'openapi:descriptions-bounded':
    'issue 44: tool descriptions bounded to 1,000 characters; 3.0 nullable, exclusive bounds and example become JSON Schema; extensions dropped',
  'openapi:own-pointers':
    'issue 44: $ref pointers follow own properties only, with ~0, ~1 and percent escapes',
  'openapi:list-both-eras':
    "issue 44: an OpenAPI source's operations are tools listed through the SDK clients of both eras, with read-only hints and the source's filters; a read key sees only reading ones",
  'openapi:large-document':
    "issue 44: GitHub's published OpenAPI document (1,223 operations) loads as a source through the gateway",
  'openapi:hostile-document':
    'issue 44: a document over the bounds makes its source unavailable with the refusal in last_error; the other sources stay ready',
  'openapi:exact-request':
    'issue 44: query arrays, JSON and form bodies and header parameters reach a real REST API exactly as the operation describes; JSON answers are structured content',
  'openapi:read-key-no-post':
    'issue 44: a read key cannot call a POST or DELETE operation, and nothing reaches the API',
  'openapi:path-escape':
    'issue 44: path parameters stay in their segment (slashes, ? and # encoded); dot segments in any form are refused before anything is sent',
  'openapi:http-errors':
    'issue 44: an HTTP error is a tool error with its status and a bounded part of the body; a large answer is cut at the source limit',
  'openapi:credential':
    "issue 44: the source's credential reaches the REST API (and Prism's petstore), never the logs; both eras' clients call through Prism",
  'openapi:crd-configmap-rendered':
    'issue 44: an McpSource with transport openapi and a ConfigMap document is rendered with the document inline into the gateway config, which the gateway contract accepts',
  'openapi:crd-status':
    'issue 44: the McpSource status (kubectl describe) shows the operations, tools and each skipped operation with its reason, under a DocumentAccepted condition',
  'openapi:crd-configmap-change':
    'issue 44: a changed ConfigMap document re-renders the source and its status (the ConfigMap watch)',
  'openapi:crd-refusals':
    'issue 44: a missing ConfigMap or key, a hostile document and one too large for the rendered config are refused with the reason and not rendered; the workspace stays served',
  'openapi:crd-other-namespace':
    'issue 44: a ConfigMap of another namespace cannot be named: the reference has no namespace field and a same-named one elsewhere is not found',
  'openapi:crd-url-not-fetched':
    'issue 44: a url document is rendered for the gateways to fetch; the operator does not fetch it and says so (DocumentAccepted Unknown)',
  'openapi:crd-cel':
    'issue 44: the CRD refuses openapi without transport openapi, the reverse, and two documents at once',
  'openapi:crd-idempotent': 'issue 44: a reconcile of an openapi source with nothing changed writes nothing',
  'openapi:crd-reader-namespace':
    "issue 44: the operator's document reader looks up a configMapKeyRef in the source's own namespace only, and the plan renders what it read inline",
  'openapi:pods-configmap':
    'issue 44: an McpSource transport openapi with its document in a ConfigMap works as real pods: kubectl describe shows the operation count and a skipped operation with its reason; SDK clients of both eras list and call a GET and a POST reaching the REST API through the gateway Service; a read key cannot call the POST; a changed ConfigMap adds a tool the pods serve',
  'openapi:gov-policy':
    "issue 44: a CEL policy over an OpenAPI tool's arguments refuses the call with its message before anything reaches the API",
  'openapi:gov-naming': 'issue 44: prefix never names an OpenAPI tool as the document does',
  'openapi:gov-pinning':
    'issue 44: under pin an OpenAPI tool is held until its offered digest is approved in the config, then served',
  'openapi:gov-search':
    'issue 44: find_tools finds an OpenAPI operation by what it does, and call_tool runs it',
  'openapi:gov-audit':
    'issue 44: a call of an OpenAPI tool is audited with its source and tool, without argument text',
  'openapi:cred-client-credentials':
    "issue 44: an OpenAPI source's client-credentials token reaches the API for its audience, is fetched once and reused (one refresh on a 401), defaults its resource to the document's server, and a wrong secret is upstream_token_unavailable with nothing sent or leaked",
  'openapi:cred-token-exchange':
    "issue 44: an OpenAPI source exchanges the signed-in caller's token and the API sees that subject for its own audience, never the caller's token; an API-key caller gets upstream_identity_required",
  'openapi:cred-user-grant':
    'issue 44: an OpenAPI source with a user credential asks an unconnected user to connect as MCP sources do; connected users each send their own token, never crossed',
  'openapi:cred-header':
    'issue 44: a static API-key header credential reaches the API exactly, with no Authorization, and never the logs',
  'openapi:cred-resource-default':
    "issue 44: an OpenAPI source's OAuth token is asked for its url, else the document's server, never an empty resource",
  'openapi:config-user-credential-url':
    "issue 44: a user credential on an OpenAPI source without the source's url is refused at its path; other kinds need no url",
  'rpc:exact-id-plain-scan':
    "issue 45: a plain body's numeric id is read by a scan of its text, and what it answers agrees with JSON.parse's reviver on bodies built to fool a scan (nested, repeated and escaped ids, ids in strings, numbers written oddly)",
  'log:lazy-request-child':
    "issue 45: a request's logger is built on its first line: a request that logs nothing builds no pino child; lines written carry the request id, the redaction and the level a pino child has",
  'audit:sink-batching':
    'issue 45: audit lines written within the wait go out in one write; close writes what waits without waiting; the wait ends by itself',
  'platform:heap-growing-percent':
    "issue 45: serve and operator set V8's heap growing factor, 50 % by default or AGW_HEAP_GROWING_PERCENT (0–400, 0 leaves V8's own), and refuse any other value with exit 2 and a message naming the variable",
  'cli:reexec-keeps-node-flags':
    'issue 45: on a Node older than 22.19 the bin re-executes itself with the provisioned Node 24 and passes on the Node flags it was started with',
  'relay:answer-stream-split':
    "issue 45: the 2026 relay's own undici handler reads an event stream split anywhere (CRLF, comments): notifications before the answer pass on, the answer is whole, a finished stream keeps its connection",
  'relay:answer-stream-open':
    'issue 45: an answer on an event stream that stays open settles the call and the rest of the exchange is closed',
  'relay:answer-stream-missing':
    'issue 45: an event stream that ends without our id is a protocol error; an error object is the upstream error',
  'relay:answer-caps':
    'issue 45: the relay handler refuses a declared length over the cap, a chunked JSON body passing it and one event over it; many small events pass',
  'relay:answer-odd-bodies':
    "issue 45: another content type, a refusal without an answer, a body that is not JSON and another request's answer are told apart",
  'relay:answer-abort':
    'issue 45: a call whose signal aborts while the upstream stalls rejects with the reason and closes the exchange; an already aborted signal sends nothing',
  'relay:answer-401-retry':
    'issue 45: a 401 the credential source refuses is retried once with a fresh credential and the same body; a static secret reports the 401 at once',
};
