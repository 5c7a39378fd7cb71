// The tool-call form: the tools the key may call come from /mcp tools/list (a read key is never
// offered a write tool), the form from the chosen tool's input schema, the call is an MCP
// tools/call. A refusal by the gateway (e.g. the key lost write access since the list was loaded)
// is shown as the gateway worded it, with its error class.
import { el, replace } from '../dom.js';
import type { CallResult, McpTool, RpcAnswer } from '../mcp.js';
import type { View, ViewContext } from '../view.js';
import { failure } from './failure.js';
import { schemaForm } from './schema-form.js';

let chosen: string | undefined;

/** Which tool the form shows when it is next rendered (from the tools view's Call buttons). */
export function chooseTool(name: string): void {
  chosen = name;
}

function outcome(answer: RpcAnswer<CallResult>): HTMLElement[] {
  if (answer.error !== undefined) {
    const { code, message, data } = answer.error;
    const detail = data?.code === undefined ? `JSON-RPC ${code}` : `${data.code}, ${data.class ?? 'error'}`;
    return [el('p', { class: 'error', role: 'alert' }, `Refused by the gateway: ${message} (${detail})`)];
  }
  const result = answer.result ?? {};
  if (result.resultType === 'input_required')
    return [
      el(
        'p',
        { class: 'notice' },
        'The tool asks for more input (elicitation), which the console cannot give; call it from an MCP client.',
      ),
    ];
  const parts = (result.content ?? []).map((item) =>
    el('pre', { class: 'content' }, item.type === 'text' ? (item.text ?? '') : JSON.stringify(item, null, 2)),
  );
  const structured =
    result.structuredContent === undefined
      ? null
      : el('pre', { class: 'content' }, JSON.stringify(result.structuredContent, null, 2));
  return [
    el(
      'p',
      { class: result.isError === true ? 'error' : 'ok' },
      result.isError === true ? 'The tool reported an error:' : 'Result:',
    ),
    ...parts,
    ...(structured === null ? [] : [structured]),
  ];
}

function toolForm(tool: McpTool, context: ViewContext): HTMLElement {
  const generated = schemaForm(`arg-${tool.name}`, tool.inputSchema);
  const out = el('div', { class: 'output', 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'stack', 'aria-label': `Arguments of ${tool.name}` },
    el('p', { class: 'hint' }, tool.description ?? ''),
    generated.element,
    el('div', { class: 'row' }, el('button', { type: 'submit' }, `Call ${tool.name}`)),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const read = generated.read();
    if (!read.ok) {
      replace(out, el('p', { class: 'error', role: 'alert' }, read.problem));
      read.control.focus();
      return;
    }
    replace(out, el('p', { class: 'muted' }, 'Calling…'));
    context.mcp
      .callTool(tool, read.args)
      .then((answer) => {
        replace(out, ...outcome(answer));
        context.announce(answer.error === undefined ? `${tool.name} answered.` : `${tool.name} was refused.`);
      })
      .catch((error: unknown) => replace(out, failure(`Calling ${tool.name}`, error)));
  });
  return el('div', {}, form, out);
}

export const callView: View = {
  id: 'call',
  label: 'Call a tool',
  async render(panel, context) {
    let tools: McpTool[];
    try {
      tools = await context.mcp.listTools();
    } catch (error) {
      return replace(panel, failure('Loading the tool list', error));
    }
    if (tools.length === 0) return replace(panel, el('p', {}, 'This key may call no tools.'));
    const holder = el('div', {});
    const picker = el(
      'select',
      { id: 'call-tool' },
      ...tools.map((t) => el('option', { value: t.name, selected: t.name === chosen }, t.name)),
    );
    const show = () => {
      const tool = tools.find((t) => t.name === picker.value) ?? tools[0];
      if (tool !== undefined) replace(holder, toolForm(tool, context));
    };
    picker.addEventListener('change', show);
    replace(
      panel,
      el(
        'div',
        { class: 'field' },
        el('label', { for: 'call-tool' }, 'Tool'),
        picker,
        el('p', { class: 'hint' }, 'Only the tools this key may call are listed.'),
      ),
      holder,
    );
    show();
  },
};
