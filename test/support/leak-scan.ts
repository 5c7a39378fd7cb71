// Finds secrets and content in exported telemetry and logs (issue 12): each needle is looked for
// whole, and long ones also as every 8-character window, so a truncated or re-encoded fragment is
// caught too. JSON string escapes are undone first, as an exporter may escape what it sends.
export interface Needle {
  readonly label: string;
  readonly value: string;
  /** Also look for every 8-character window of the value. */
  readonly windows?: boolean;
}

export interface Leak {
  readonly label: string;
  readonly fragment: string;
  readonly context: string;
}

export function findLeaks(haystacks: readonly string[], needles: readonly Needle[]): Leak[] {
  const leaks: Leak[] = [];
  const texts = haystacks.map((text) =>
    text.replace(/\\u([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
  );
  for (const needle of needles) {
    const fragments = new Set([needle.value]);
    if (needle.windows === true)
      for (let i = 0; i + 8 <= needle.value.length; i += 1) fragments.add(needle.value.slice(i, i + 8));
    for (const fragment of fragments)
      for (const text of texts) {
        const at = text.indexOf(fragment);
        if (at >= 0)
          leaks.push({
            label: needle.label,
            fragment,
            context: text.slice(Math.max(0, at - 60), at + fragment.length + 60),
          });
      }
  }
  return leaks;
}
