// The tools an OpenAPI source offers (issue 44): each operation of a REST API's OpenAPI 3.0/3.1
// document, as an MCP tool with everything needed to build its HTTP request from a call's arguments.
// Made by openapi-catalog.ts from a parsed document; requests by request-builder.ts; results by
// http-result.ts. Pure data: no I/O here.

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter of an operation, with the style the document gives or its location's default. */
export interface OperationParameter {
  /** The name in the document (what goes on the wire). */
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** `simple`, `label`, `matrix` (path); `form`, `spaceDelimited`, `pipeDelimited`, `deepObject` (query); `simple` (header); `form` (cookie). */
  readonly style: string;
  readonly explode: boolean;
  /** `allowReserved` of a query parameter: reserved characters go unencoded. */
  readonly allowReserved: boolean;
  /** The parameter's JSON Schema (refs resolved, bounded). */
  readonly schema: Readonly<Record<string, unknown>>;
  /** The property of the tool's input schema that carries it (unique within the tool). */
  readonly argument: string;
}

/** The request body of an operation: the one media type the tool sends. */
export interface OperationBody {
  /** `application/json` (or a `+json` type), `application/x-www-form-urlencoded`, or `text/plain`. */
  readonly mediaType: string;
  readonly required: boolean;
  /** The property of the tool's input schema that carries it. */
  readonly argument: string;
}

export interface OpenApiTool {
  /** The tool's name on the source (≤ 64 characters, [A-Za-z0-9_-], unique): from `operationId`, else method and path. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments: `type: object`, one property per parameter and one for the body. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** `readOnlyHint` true for GET, HEAD and OPTIONS (unless the admin overrides), plus `title`. */
  readonly annotations: Readonly<Record<string, unknown>>;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path as the document writes it, e.g. `/pets/{petId}`. */
  readonly pathTemplate: string;
  readonly parameters: readonly OperationParameter[];
  readonly body?: OperationBody;
  /**
   * The operation's own server URLs, when its operation or path item names them (OpenAPI: they
   * override the document's `servers` for this operation); variables filled with their defaults.
   */
  readonly servers?: readonly string[];
}

/** An operation the source does not offer, and why (shown by `kubectl describe` and /agent/sources). */
export interface SkippedOperation {
  /** `GET /pets/{id}` (with the operationId in parentheses when there is one). */
  readonly operation: string;
  readonly reason: string;
}

export interface OpenApiCatalog {
  readonly title: string;
  readonly version: string;
  /** The document's server URLs (variables filled with their defaults). */
  readonly servers: readonly string[];
  readonly tools: readonly OpenApiTool[];
  readonly skipped: readonly SkippedOperation[];
}

/** Which operations become tools (all when empty); an operation must pass every list given. */
export interface OperationFilter {
  readonly tags?: readonly string[];
  readonly methods?: readonly string[];
  /** Path globs (`*` within a segment, `**` across segments), e.g. `/pets/**`. */
  readonly paths?: readonly string[];
  readonly operationIds?: readonly string[];
}

/** The HTTP request a call becomes. */
export interface BuiltRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}
