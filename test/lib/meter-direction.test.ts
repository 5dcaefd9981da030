import should from 'should';
import { ExportMeters, matchesWildcard } from '../../nodes/lib/runtime/common/meter-direction';

// Slow, obviously correct reference: does `name` split into the pattern's literal parts
// with any runs between them? Tried at every place, recursively (small inputs only).
function referenceMatch(parts: readonly string[], name: string): boolean {
  if (parts.length === 1) return name === parts[0];
  if (!name.startsWith(parts[0])) return false;
  const rest = name.slice(parts[0].length);
  for (let skip = 0; skip <= rest.length; skip++) if (referenceMatch(parts.slice(1), rest.slice(skip))) return true;
  return false;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('export meters setting: wildcard names', () => {
  it('matches as the reference does on 5,000 generated patterns and names', () => {
    const next = random(47);
    const pick = (alphabet: string, max: number): string => {
      let out = '';
      const n = Math.floor(next() * (max + 1));
      for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
      return out;
    };
    let matched = 0;
    for (let i = 0; i < 5000; i++) {
      const pattern = pick('ab*/', 7);
      const name = pick('ab/', 9);
      const parts = pattern.split('*');
      const want = referenceMatch(parts, name);
      if (want) matched++;
      should(matchesWildcard(parts, name)).equal(want, `pattern ${JSON.stringify(pattern)} name ${JSON.stringify(name)}`);
    }
    should(matched).be.above(250); // the cases exercise matches, not only misses
  });

  it('reads names and patterns whole, exact names apart from patterns', () => {
    const meters = new ExportMeters('G1/export.kwh, */feed-in*\n*.export');
    should(meters.matches('G1/export.kwh')).be.true();
    should(meters.matches('G1/export.kwh2')).be.false();
    should(meters.matches('G2/feed-in')).be.true();
    should(meters.matches('G2/feed-in.kwh')).be.true();
    should(meters.matches('feed-in')).be.false();
    should(meters.matches('inverter.export')).be.true();
    should(meters.matches('inverter.export.kwh')).be.false();
    should(meters.matches('a.b')).be.false(); // `.` is a character, not any character
  });

  it('answers at once for hostile patterns and names of the longest allowed length', () => {
    // A RegExp of `.*` runs backtracks polynomially here (199 a's against 20 runs): the test
    // would not finish; the matcher looks at each character a bounded number of times.
    const pattern = `${'*a'.repeat(20)}*b`;
    const meters = new ExportMeters(Array.from({ length: 64 }, () => pattern).join(','));
    const name = 'a'.repeat(200);
    for (let i = 0; i < 100; i++) should(meters.matches(name)).be.false();
    should(meters.matches(`${'a'.repeat(199)}b`)).be.true();
  });
});
