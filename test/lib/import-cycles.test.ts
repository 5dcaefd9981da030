// No import circles in nodes/lib, type imports included: neither between files nor between
// the folders of the engine's and the runtime's parts (docs/architecture.md), so each file
// and each part can be read, built and tested on top of what it imports.
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';

const LIB = path.join(__dirname, '..', '..', 'nodes', 'lib');
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.[^']*)'|(?:^|\n)\s*import\s*'(\.[^']*)'/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each file of nodes/lib (relative, no extension) and the files of nodes/lib it imports. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(LIB)) {
    const text = fs.readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      let target = path.resolve(path.dirname(file), spec);
      if (fs.existsSync(path.join(target, 'index.ts'))) target = path.join(target, 'index');
      if (!target.startsWith(LIB + path.sep)) continue;
      should(fs.existsSync(target + '.ts')).be.true(`${file} imports ${spec}, which is not a file`);
      targets.push(path.relative(LIB, target));
    }
    graph.set(path.relative(LIB, file).replace(/\.ts$/, ''), targets);
  }
  return graph;
}

/** The circles of a graph, each once, as the path that closes it (Tarjan-free: graphs here are small). */
export function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

/** The part a file belongs to: engine/<part> or runtime/<part>; api, editor and index are one each. */
const partOf = (file: string) =>
  file
    .split('/')
    .slice(0, file.startsWith('engine/') || file.startsWith('runtime/') ? 2 : 1)
    .join('/');

describe('import circles in nodes/lib', () => {
  const graph = importGraph();

  it('reads every file and its imports', () => {
    should(graph.size).be.above(60);
    should(graph.get('engine/cost/cost')).containEql('engine/tariff/tariff');
  });

  it('no file imports itself through others (types included)', () => {
    should(circles(graph).map((c) => c.join(' -> '))).eql([]);
  });

  it("no part's folder imports itself through other parts", () => {
    const parts = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = partOf(file);
      const list = parts.get(from) ?? [];
      for (const t of targets) if (partOf(t) !== from && !list.includes(partOf(t))) list.push(partOf(t));
      parts.set(from, list);
    }
    should(circles(parts).map((c) => c.join(' -> '))).eql([]);
  });

  it('finds a circle when there is one (the check can fail)', () => {
    const made = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    should(circles(made)).eql([['a', 'b', 'c', 'a']]);
  });
});
