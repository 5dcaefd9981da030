// docs/semantics.md's numbered rules are what code, tests and docs cite ("rule 36",
// "rules 27-32"): each number names one rule, so they run 1, 2, 3, … with none twice and
// none skipped, and every citation names a rule that exists.
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';

const ROOT = path.join(__dirname, '..', '..');
const SEMANTICS = fs.readFileSync(path.join(ROOT, 'docs', 'semantics.md'), 'utf8');

/** The numbers of the rules, in the order they stand: a line `N. **Title**`. */
function ruleNumbers(doc: string): number[] {
  return [...doc.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1]));
}

/** The files under a folder of the repository, as paths from its root (Node 18 has no recursive readdir). */
function filesUnder(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(folder, e.name);
    return e.isDirectory() ? filesUnder(rel) : [rel];
  });
}

describe('docs/semantics.md rule numbers', () => {
  it('run 1, 2, 3, … in order: none twice, none skipped', () => {
    const numbers = ruleNumbers(SEMANTICS);
    should(numbers.length).be.above(30);
    should(numbers).eql(numbers.map((_, i) => i + 1));
  });

  it('a doubled number is caught', () => {
    const doubled = '1. **A**\n2. **B**\n2. **C**\n';
    should(ruleNumbers(doubled)).not.eql([1, 2, 3]);
  });

  it('every "semantics rule N" citation in code and docs names a rule that exists', () => {
    const last = ruleNumbers(SEMANTICS).length;
    const files = [...['nodes', 'test', 'docs'].flatMap(filesUnder), 'README.md', 'CHANGELOG.md'].filter((f) => /\.(ts|md|html)$/.test(f));
    const cited: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/semantics[^.\n]{0,40}?\brules? (\d+)(?:\s*[-–]\s*(\d+))?/gi)) {
        const high = Number(m[2] ?? m[1]);
        if (high > last || Number(m[1]) < 1) cited.push(`${file}: ${m[0]}`);
      }
    }
    should(cited).eql([]);
  });
});
