// Where this page was opened (docs/console.md): /console for the gateway's shared resource, or
// /w/<workspace>/console for one workspace's own resource (D24). The page then signs in with that
// workspace's identity providers (its sign-in options and redirect URI sit under the same base) and
// sends MCP requests to that workspace's endpoint, /w/<workspace>/mcp.
const OPENED = /^\/w\/([a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?)\/console(\/|$)/.exec(location.pathname);

/** The workspace the page was opened for, or undefined at /console. */
export const WORKSPACE: string | undefined = OPENED?.[1];

/** /console, or /w/<workspace>/console. */
export const CONSOLE_BASE = WORKSPACE === undefined ? '/console' : `/w/${WORKSPACE}/console`;

/** The MCP endpoint the page talks to. */
export const MCP_PATH = WORKSPACE === undefined ? '/mcp' : `/w/${WORKSPACE}/mcp`;
