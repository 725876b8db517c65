// Similarity for fuzzy edits, as a table: edit distance for small texts, bigram Dice for large ones,
// on one 0..1 scale; and the closest window of lines to a text.
import { describe, expect, it } from 'vitest';
import { closestRegion, similarity } from '../../src/edit/similarity.js';

describe('similarity', () => {
  it.each([
    ['same', 'same', 1],
    ['', 'x', 0],
    ['x', '', 0],
    ['kitten', 'sitting', 1 - 3 / 7],
    ['abcd', 'abce', 0.75],
    ['abc', 'xyz', 0],
  ])('%j vs %j → %d', (a, b, expected) => {
    expect(similarity(a, b)).toBeCloseTo(expected, 6);
  });

  it('uses bigrams past the edit-distance budget, on the same scale', () => {
    const big = 'the quick brown fox jumps\n'.repeat(120);
    expect(big.length * big.length).toBeGreaterThan(4_000_000);
    expect(similarity(big, big.replace(/fox/g, 'cat'))).toBeGreaterThan(0.8);
    expect(similarity(big, 'z'.repeat(big.length))).toBeLessThan(0.05);
  });
});

describe('closestRegion', () => {
  const lines = ['import x;', 'function add(a, b) {', '  return a + b;', '}', 'export { add };'];

  it.each([
    ['function add(a, c) {\n  return a + c;\n}', 2, 4],
    ['export { ad };', 5, 5],
    ['import y;', 1, 1],
  ])('%j → lines %d-%d', (wanted, startLine, endLine) => {
    expect(closestRegion(lines, wanted)).toMatchObject({ startLine, endLine });
  });

  it('has nothing to offer in an empty file', () => {
    expect(closestRegion([''], 'x')).toBeUndefined();
    expect(closestRegion([], 'x')).toBeUndefined();
  });
});
