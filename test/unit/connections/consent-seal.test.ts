// The consent flow's sealed values (issue 42): each opens only for its own purpose, target and time,
// and says nothing readable.
import { describe, expect, it } from 'vitest';
import { ConsentSeal, browserDigest } from '../../../gateway/connections/index.js';
import { ValueCipher } from '../../../gateway/shared-state/value-cipher.js';

const KEY = 'k'.repeat(40);
const target = { workspace: 'team', principal: 'key-1', source: 'github' };

function sealAt(clock: { now: number }, keys = [KEY]): ConsentSeal {
  return new ConsentSeal(new ValueCipher(keys), () => clock.now);
}

describe('consent seal', () => {
  it('user-oauth:seal-ticket — a ticket opens to its target until it expires, and hides it', () => {
    const clock = { now: 1_000_000 };
    const seal = sealAt(clock);
    const ticket = seal.ticket(target);
    expect(ticket).not.toContain('team');
    expect(Buffer.from(ticket.split('.')[2] ?? '', 'base64url').toString('latin1')).not.toContain('github');
    expect(seal.openTicket(ticket)).toEqual(target);
    clock.now += 10 * 60 * 1000 + 1;
    expect(seal.openTicket(ticket)).toBeUndefined();
  });

  it('user-oauth:seal-purposes — a ticket is not a state or retry state, and a flipped byte opens nothing', () => {
    const clock = { now: 1_000_000 };
    const seal = sealAt(clock);
    const ticket = seal.ticket(target);
    expect(seal.openState(ticket)).toBeUndefined();
    expect(seal.retryMatches(`agwc1.${ticket}`, target, 'echo')).toBe(false);
    const state = seal.sealState(
      seal.state(target, 'https://as.example', 'verifier', browserDigest('cookie')),
    );
    expect(seal.openTicket(state)).toBeUndefined();
    const flipped = `${state.slice(0, -3)}${state.at(-3) === 'A' ? 'B' : 'A'}${state.slice(-2)}`;
    expect(seal.openState(flipped)).toBeUndefined();
    expect(seal.openState('x'.repeat(10_000))).toBeUndefined();
  });

  it('user-oauth:seal-retry-binding — a retry state matches only its workspace, principal, source and tool', () => {
    const seal = sealAt({ now: 5 });
    const retry = seal.retryState(target, 'echo');
    expect(ConsentSeal.isRetryState(retry)).toBe(true);
    expect(seal.retryMatches(retry, target, 'echo')).toBe(true);
    expect(seal.retryMatches(retry, target, 'whoami')).toBe(false);
    expect(seal.retryMatches(retry, { ...target, principal: 'key-2' }, 'echo')).toBe(false);
    expect(seal.retryMatches(retry, { ...target, workspace: 'other' }, 'echo')).toBe(false);
    expect(seal.retryMatches(retry, { ...target, source: 'jira' }, 'echo')).toBe(false);
  });

  it('user-oauth:seal-state — the OAuth state carries verifier, issuer and browser digest; another key cannot open it; rotation keeps it', () => {
    const clock = { now: 7 };
    const seal = sealAt(clock);
    const made = seal.state(target, 'https://as.example', 'v'.repeat(64), browserDigest('c'));
    const opened = seal.openState(seal.sealState(made));
    expect(opened).toEqual(made);
    expect(sealAt(clock, ['z'.repeat(40)]).openState(seal.sealState(made))).toBeUndefined();
    expect(sealAt(clock, ['z'.repeat(40), KEY]).openState(seal.sealState(made))).toEqual(made);
    expect(browserDigest('c')).not.toBe(browserDigest('d'));
  });
});
