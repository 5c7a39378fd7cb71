// Parses `--expires`: a duration (`90d`, `12h`, `30m`) from now, or an ISO 8601 date-time.
export function parseExpiry(value: string, now: Date): string {
  const duration = /^(\d+)([dhm])$/.exec(value);
  if (duration !== null) {
    const amount = Number(duration[1]);
    const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000 }[duration[2] as 'd' | 'h' | 'm'];
    if (amount <= 0) throw new Error('--expires must be in the future');
    return new Date(now.getTime() + amount * unitMs).toISOString();
  }
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    throw new Error(
      '--expires must be a duration like 90d, 12h, 30m or an ISO date-time like 2027-01-31T00:00:00Z',
    );
  }
  if (parsed <= now.getTime()) throw new Error('--expires must be in the future');
  return new Date(parsed).toISOString();
}
