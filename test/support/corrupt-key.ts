// A key with its last (checksum) character changed — always changed: replacing it with a fixed
// letter would leave the key intact whenever that letter was already there (1 run in 62).
export function corruptLastCharacter(key: string): string {
  const last = key.at(-1);
  return `${key.slice(0, -1)}${last === 'x' ? 'y' : 'x'}`;
}
