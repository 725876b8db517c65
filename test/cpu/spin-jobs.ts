// Jobs for the CpuPool tests: synchronous work that only terminating its worker can stop, a heap hog, a
// typed error and a plain answer.
import { toolgateError } from '../../src/lib/errors.js';

/** Busy for `ms` (or forever), never yielding: as a hostile input would keep a matcher. */
export function spin(input: { ms?: number }): number {
  const end = input.ms === undefined ? Infinity : Date.now() + input.ms;
  let turns = 0;
  while (Date.now() < end) turns++;
  return turns;
}

/** Grows its heap until the worker's limit stops it. */
export function hog(): number {
  const held: number[][] = [];
  for (;;) held.push(new Array<number>(1_000_000).fill(held.length));
}

export function refuse(input: { what: string }): never {
  throw toolgateError('EDIT_NOT_FOUND', `no ${input.what}`, { suggestion: 'look again', details: { n: 1 } });
}

export const echo = (input: { text: string }): string => input.text;
