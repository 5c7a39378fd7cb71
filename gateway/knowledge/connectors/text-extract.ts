// Turns a file's bytes into a title and plain text by type: Markdown (first heading), HTML (tags and
// scripts stripped, <title>), JSON (flattened `key: value` lines, a title/name field), plain text.
// With none of these, the file's name is the title when it means something (file-name-title.ts).
import { extname } from 'node:path';
import { fileNameTitle } from './file-name-title.js';

export interface Extracted {
  readonly title: string;
  readonly body: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, entity: string) => {
    if (!entity.startsWith('#')) return ENTITIES[entity.toLowerCase()] ?? whole;
    const code =
      entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    // Out-of-range or invalid code points stay as written rather than failing the whole file.
    return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function fromHtml(text: string, fallback: string): Extracted {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.trim();
  const body = decodeEntities(
    text
      .replace(/<(script|style|noscript)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<(br|\/p|\/div|\/h[1-6]|\/li|\/tr)[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
  )
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n\n')
    .trim();
  return { title: title !== undefined && title !== '' ? decodeEntities(title) : fallback, body };
}

function flattenJson(value: unknown, prefix: string, lines: string[]): void {
  if (Array.isArray(value)) value.forEach((item, i) => flattenJson(item, `${prefix}[${i}]`, lines));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value))
      flattenJson(child, prefix === '' ? key : `${prefix}.${key}`, lines);
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    lines.push(`${prefix}: ${String(value)}`);
}

function fromJson(text: string, fallback: string): Extracted {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { title: fallback, body: text };
  }
  const lines: string[] = [];
  flattenJson(parsed, '', lines);
  const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const named = record['title'] ?? record['name'];
  return { title: typeof named === 'string' && named !== '' ? named : fallback, body: lines.join('\n') };
}

function fromMarkdown(text: string, fallback: string): Extracted {
  const heading = /^#{1,2}\s+(.+)$/m.exec(text)?.[1]?.trim();
  return { title: heading ?? fallback, body: text };
}

export function extractText(path: string, text: string): Extracted {
  const fallback = fileNameTitle(path);
  switch (extname(path).toLowerCase()) {
    case '.html':
    case '.htm':
      return fromHtml(text, fallback);
    case '.json':
      return fromJson(text, fallback);
    case '.md':
    case '.markdown':
      return fromMarkdown(text, fallback);
    default:
      return { title: fallback, body: text };
  }
}
