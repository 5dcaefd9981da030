'use strict';
// The README's compatibility section, rendered from the compatibility job's results
// (docs/compatibility.json). One place for the format: scripts/compat.js writes the
// section with it, test/lib/package.test.ts checks the README still equals it.

const BEGIN = '<!-- compatibility: written by `npm run test:compat` from docs/compatibility.json -->';
const END = '<!-- /compatibility -->';

function byVersion(a, b) {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}
const unique = (xs) => [...new Set(xs)].sort(byVersion);
const minor = (v) => v.split('.').slice(0, 2).join('.');

/** Markdown between the markers: what is supported (the oldest passing cells) and the table. */
function renderCompatSection(doc) {
  const cells = doc.cells;
  const reds = unique(cells.map((c) => c.nodeRed));
  const nodes = unique(cells.map((c) => c.node));
  const passing = cells.filter((c) => c.result === 'pass');
  const lines = [BEGIN];
  if (passing.length) {
    const needs = reds.map((red) => `${red}: ${cells.find((c) => c.nodeRed === red).nodeRedNeeds}`);
    lines.push(
      `Requirements: Node-RED ${unique(passing.map((c) => c.nodeRed))[0]} or later, ` +
        `Node.js ${minor(unique(passing.map((c) => c.node))[0])} or later, within what your Node-RED release`,
      `itself needs (Node-RED ${needs.join(', ')}).`,
      '',
    );
  }
  lines.push(
    'Tested by `npm run test:compat` (part of CI): the npm tarball installed into each stock',
    'Node-RED, the examples deployed against the simulator, and a price, a sensor value, stream',
    'totals, a range cost, a batch cost and the library in a function node read back.',
    '✅ passed, ❌ failed, – not a tested cell.',
    '',
    `| Node-RED | ${nodes.map((n) => `Node.js ${n}`).join(' | ')} |`,
    `|---|${nodes.map(() => '---|').join('')}`,
  );
  for (const red of reds) {
    const row = nodes.map((n) => {
      const c = cells.find((x) => x.nodeRed === red && x.node === n);
      return !c ? '–' : c.result === 'pass' ? '✅' : '❌';
    });
    lines.push(`| ${red} | ${row.join(' | ')} |`);
  }
  lines.push(END);
  return lines.join('\n');
}

/** The README's section between the markers (markers included), or null without one. */
function currentCompatSection(readme) {
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END, from);
  return from < 0 || to < 0 ? null : readme.slice(from, to + END.length);
}

function replaceCompatSection(readme, section) {
  const current = currentCompatSection(readme);
  if (current === null) throw new Error(`README.md has no compatibility section (${BEGIN} ... ${END})`);
  return readme.replace(current, () => section);
}

module.exports = { renderCompatSection, currentCompatSection, replaceCompatSection };
