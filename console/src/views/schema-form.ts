// A form generated from a tool's input schema: strings (a select for an enum), numbers and integers,
// booleans as checkboxes, and arrays, objects or anything else as JSON text. Each control has a label
// and its schema description as a hint. `read` turns the filled form back into arguments, or says
// which field is wrong.
import { el } from '../dom.js';
import type { JsonSchema } from '../mcp.js';

type Kind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'json';

interface Field {
  readonly name: string;
  readonly kind: Kind;
  readonly required: boolean;
  readonly control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
}

export interface SchemaForm {
  readonly element: HTMLElement;
  read(): { ok: true; args: Record<string, unknown> } | { ok: false; problem: string; control: HTMLElement };
}

function kindOf(schema: JsonSchema): Kind {
  const declared: string | readonly string[] | undefined = schema.type;
  const type: string | undefined =
    typeof declared === 'string' ? declared : declared?.find((t) => t !== 'null');
  if (schema.enum !== undefined && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

function controlFor(id: string, kind: Kind, schema: JsonSchema, required: boolean) {
  const described = schema.description === undefined ? {} : { 'aria-describedby': `${id}-hint` };
  const common = { id, required: required && kind !== 'boolean', ...described };
  switch (kind) {
    case 'enum':
      return el(
        'select',
        common,
        required ? null : el('option', { value: '' }, '(not set)'),
        ...(schema.enum ?? []).map((v) => el('option', { value: String(v) }, String(v))),
      );
    case 'number':
    case 'integer':
      return el('input', {
        ...common,
        type: 'number',
        step: kind === 'integer' ? 1 : 'any',
        min: schema.minimum,
        max: schema.maximum,
      });
    case 'boolean':
      return el('input', { ...common, type: 'checkbox', checked: schema.default === true });
    case 'string':
      return el('input', { ...common, type: 'text', autocomplete: 'off', spellcheck: 'false' });
    case 'json':
      return el('textarea', { ...common, rows: 3, spellcheck: 'false', placeholder: 'JSON, e.g. [] or {}' });
  }
}

export function schemaForm(prefix: string, schema: JsonSchema | undefined): SchemaForm {
  const required = new Set(schema?.required ?? []);
  const fields: Field[] = Object.entries(schema?.properties ?? {}).map(([name, property], i) => {
    const kind = kindOf(property);
    const control = controlFor(`${prefix}-${i}`, kind, property, required.has(name));
    return { name, kind, required: required.has(name), control };
  });
  const element = el(
    'div',
    { class: 'stack' },
    fields.length === 0 ? el('p', { class: 'muted' }, 'This tool takes no arguments.') : null,
    ...fields.map(({ name, kind, required: needed, control }) => {
      const property = schema?.properties?.[name] ?? {};
      const label = `${name}${needed ? ' (required)' : ''} — ${kind === 'json' ? 'JSON' : kind}`;
      return el(
        'div',
        { class: kind === 'boolean' ? 'field check' : 'field' },
        el('label', { for: control.id }, label),
        control,
        property.description === undefined
          ? null
          : el('p', { class: 'hint', id: `${control.id}-hint` }, property.description),
      );
    }),
  );
  return {
    element,
    read() {
      const args: Record<string, unknown> = {};
      for (const { name, kind, required: needed, control } of fields) {
        if (kind === 'boolean') {
          args[name] = (control as HTMLInputElement).checked;
          continue;
        }
        const raw = control.value;
        if (raw.trim() === '') {
          if (needed) return { ok: false, problem: `${name} is required.`, control };
          continue;
        }
        if (kind === 'number' || kind === 'integer') {
          const value = Number(raw);
          if (!Number.isFinite(value) || (kind === 'integer' && !Number.isInteger(value)))
            return {
              ok: false,
              problem: `${name} must be ${kind === 'integer' ? 'an integer' : 'a number'}.`,
              control,
            };
          args[name] = value;
        } else if (kind === 'json') {
          try {
            args[name] = JSON.parse(raw) as unknown;
          } catch {
            return { ok: false, problem: `${name} is not valid JSON.`, control };
          }
        } else args[name] = raw;
      }
      return { ok: true, args };
    },
  };
}
