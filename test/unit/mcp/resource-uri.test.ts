// The two forms of a namespaced resource URI (resource-uri.ts): the encoded form of listed resources
// and the verbatim form of templates, which a client expands itself.
import { describe, expect, it } from 'vitest';
import { UriTemplate } from '@modelcontextprotocol/server';
import {
  namespacedUri,
  namespacedUriTemplate,
  parseNamespacedUri,
} from '../../../gateway/mcp/resource-uri.js';

describe('namespaced resource URIs', () => {
  it('mcp:resource-template-uri-forms — a gateway template expands to agw://<source>/~/ plus the upstream expansion, parsed back verbatim; the encoded form still decodes', () => {
    for (const value of ['a/b', '100%', '%2F', 'é', '..', '~/x', '{key}']) {
      const upstream = new UriTemplate('file:///notes/{key}{?q}').expand({ key: value, q: value });
      const expanded = new UriTemplate(namespacedUriTemplate('docs', 'file:///notes/{key}{?q}')).expand({
        key: value,
        q: value,
      });
      expect(expanded).toBe(`agw://docs/~/${upstream}`);
      expect(parseNamespacedUri(expanded)).toEqual({ source: 'docs', uri: upstream, form: 'verbatim' });
      // A listed resource whose own URI starts with `~/` keeps the encoded form (the `/` is escaped).
      expect(parseNamespacedUri(namespacedUri('docs', `~/${value}`))).toEqual({
        source: 'docs',
        uri: `~/${value}`,
        form: 'encoded',
      });
    }
    expect(parseNamespacedUri('agw://docs/~/')).toBeUndefined();
    expect(parseNamespacedUri('agw://docs/%E0')).toBeUndefined();
  });
});
