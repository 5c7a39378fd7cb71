// MCP Apps' client capability (issue 43; ext-apps 2026-01-26 §Client Capability) on the gateway's
// upstream hops. A server may check `extensions["io.modelcontextprotocol/ui"].mimeTypes` and offer
// UI tools only to hosts that render them; the gateway relays UI resources and their `_meta`
// unchanged, so it declares the extension wherever it speaks for more than one client (its pooled
// sessions and discovery) or for a client it cannot ask (a 2025-era caller: the stateless legacy
// face never keeps its `initialize`). A 2026 client's own declaration is taken, and only this one
// extension with only its `mimeTypes`: nothing else a client writes there goes upstream this way.
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { MCP_APP_MIME_TYPE, UI_EXTENSION } from '../protocol/index.js';

/** What the gateway declares for MCP Apps when it speaks for callers it cannot ask (a new object
 * each time: the SDK keeps what it is given). */
export function gatewayUiCapability(): Pick<ClientCapabilities, 'extensions'> {
  return { extensions: { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } };
}

/** At most this many MIME types, of at most this many characters each, are passed on. */
const MAX_MIME_TYPES = 8;
const MAX_MIME_TYPE_LENGTH = 128;
/** A media type with parameters: visible ASCII, `;`, `=` and spaces inside parameters. */
const MIME_TYPE = /^[\x21-\x7e][\x20-\x7e]*$/;

/** The client's own MCP Apps declaration, reduced to its `mimeTypes` (the extension's one field);
 * empty when it declares none, or none usable. */
export function uiCapabilityOf(client: Record<string, unknown>): Pick<ClientCapabilities, 'extensions'> {
  const extensions = client['extensions'];
  if (typeof extensions !== 'object' || extensions === null || !Object.hasOwn(extensions, UI_EXTENSION))
    return {};
  const ui = (extensions as Record<string, unknown>)[UI_EXTENSION];
  const declared =
    typeof ui === 'object' && ui !== null ? (ui as Record<string, unknown>)['mimeTypes'] : undefined;
  if (!Array.isArray(declared)) return {};
  const mimeTypes = declared
    .filter(
      (type): type is string =>
        typeof type === 'string' && type.length <= MAX_MIME_TYPE_LENGTH && MIME_TYPE.test(type),
    )
    .slice(0, MAX_MIME_TYPES);
  return mimeTypes.length === 0 ? {} : { extensions: { [UI_EXTENSION]: { mimeTypes } } };
}
