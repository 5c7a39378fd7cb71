// An admin's presentation of a tool (issue 41): the title, description and annotations from the
// source's `overrides` replace the upstream's before the tool is pinned, permitted, named and ranked,
// so what the model sees, and what pinning approves, is what the admin wrote.
import type { Tool } from '@modelcontextprotocol/client';
import type { McpSourceConfig } from '../config/index.js';

/** The tool as its source's overrides present it (the same object when none name it). */
export function presentTool(source: McpSourceConfig, tool: Tool): Tool {
  // Own keys only: an upstream tool named `constructor` must not find Object.prototype's.
  const override = Object.hasOwn(source.overrides, tool.name) ? source.overrides[tool.name] : undefined;
  if (override === undefined) return tool;
  return {
    ...tool,
    ...(override.title === undefined ? {} : { title: override.title }),
    ...(override.description === undefined ? {} : { description: override.description }),
    ...(override.annotations === undefined
      ? {}
      : { annotations: { ...tool.annotations, ...override.annotations } }),
  };
}
