// Kubernetes quantities in the forms the CRD and the policy admit (QUANTITY_PATTERN: a decimal and
// one of m, k, M, G, T, Ki, Mi, Gi, Ti), as numbers, so a limit can be compared with the admin's
// maximum and a request with its limit.
const FACTORS: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** The value in base units (cores, bytes), or undefined when the text is not such a quantity. */
export function parseQuantity(text: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * (FACTORS[match[2] ?? ''] ?? 1);
}

/** The smaller of two quantities as written (the first when either cannot be read). */
export function smallerQuantity(a: string, b: string): string {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x === undefined || y === undefined || x <= y ? a : b;
}
