// Glob patterns for connector include/exclude lists: `**` spans directories, `*` stays within one,
// `?` is one character. Matched against `/`-separated paths relative to the source root.
const cache = new Map<string, RegExp>();

export function globToRegExp(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (regex !== undefined) return regex;
  let out = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    if (char === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  regex = new RegExp(`^${out}$`);
  cache.set(pattern, regex);
  return regex;
}

export function matchesGlobs(path: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => globToRegExp(pattern).test(path));
}
