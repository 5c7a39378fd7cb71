// Measures the events of a `text/event-stream` body as its bytes arrive, for the per-source answer
// cap (issue 8 item 3): no single event (the bytes between two blank lines, line breaks aside) may
// exceed `maxBytes`, while a long-lived stream of small events is fine.
const LF = 0x0a;
const CR = 0x0d;

export class EventSizeMeter {
  private run = 0;
  private afterNewline = false;

  constructor(private readonly maxBytes: number) {}

  /** Feeds the next chunk; calls `onEventEnd` with the offset just past each blank line. Returns
   * false as soon as the current event passes the cap. */
  feed(chunk: Uint8Array, onEventEnd?: (end: number) => void): boolean {
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i];
      if (byte === LF) {
        if (this.afterNewline) {
          this.run = 0;
          onEventEnd?.(i + 1);
        }
        this.afterNewline = true;
      } else if (byte !== CR) {
        this.afterNewline = false;
        this.run += 1;
        if (this.run > this.maxBytes) return false;
      }
    }
    return true;
  }
}
