// Ready-to-paste MCP client configs (GET /agent/mcp/config), each with a copy button. The gateway
// never echoes the key; the snippets name an environment variable or a prompt instead.
import { el, replace, show } from '../dom.js';
import type { View, ViewContext } from '../view.js';
import { failure } from './failure.js';

interface ClientConfig {
  readonly note: string;
  readonly command?: string;
  readonly file?: string;
  readonly json?: unknown;
}

interface ConfigBody {
  readonly endpoint: string;
  readonly server_name: string;
  readonly protocol_version: string;
  readonly clients: Readonly<Record<string, ClientConfig>>;
}

const NAMES: Readonly<Record<string, string>> = {
  claude_code: 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  claude_desktop: 'Claude Desktop',
  windsurf: 'Windsurf',
};

function copyButton(label: string, text: string, context: ViewContext): HTMLElement {
  return el(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Copy the ${label} config`,
      onclick: () => {
        navigator.clipboard.writeText(text).then(
          () => context.announce(`${label} config copied.`),
          () => context.announce('Copying failed: select the text and copy it yourself.'),
        );
      },
    },
    'Copy',
  );
}

export const clientsView: View = {
  id: 'clients',
  label: 'Client configs',
  async render(panel, context) {
    let body: ConfigBody;
    try {
      body = await context.api.get<ConfigBody>('/agent/mcp/config');
    } catch (error) {
      return replace(panel, failure('Loading client configs', error));
    }
    const cards = Object.entries(body.clients).map(([id, client]) => {
      const label = NAMES[id] ?? id;
      const text = client.command ?? JSON.stringify(client.json ?? {}, null, 2);
      return el(
        'article',
        { class: 'card' },
        el('div', { class: 'row spread' }, el('h3', {}, label), copyButton(label, text, context)),
        client.file === undefined ? null : el('p', { class: 'meta' }, `File: ${client.file}`),
        el('pre', { class: 'snippet-code' }, el('code', {}, text)),
        el('p', { class: 'hint' }, client.note),
      );
    });
    replace(
      panel,
      el(
        'p',
        { class: 'meta' },
        `Endpoint ${body.endpoint} · ${show(body.protocol_version)} · server name ${body.server_name}`,
      ),
      ...cards,
    );
  },
};
