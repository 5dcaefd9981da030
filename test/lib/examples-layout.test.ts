// Every flow in examples/ (whoever adds it) as a user sees it in the editor: laid out with
// no two nodes' boxes (their status text's room included) overlapping, each of our nodes
// reporting to a Catch node, its own section in docs/examples.md, and the demo built from
// them opening on its overview tab with a "send the current values" button.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const { overlaps, layoutFlow, nodeBoxes } = require(path.join(ROOT, 'scripts', 'layout-flow.js'));
const { exampleFlows } = require(path.join(ROOT, 'scripts', 'demo-flows.js'));

type FlowNode = { id: string; type: string; z?: string; x?: number; y?: number; wires?: string[][]; [key: string]: unknown };
const FILES = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));
const flowOf = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as FlowNode[];

describe('examples: laid out to be read (every file in examples/)', () => {
  it('finds the examples', () => {
    should(FILES.length).be.aboveOrEqual(11);
  });

  for (const file of FILES) {
    it(`${file}: no two nodes' boxes or status texts overlap (lay it out with node scripts/layout-flow.js ${file})`, () => {
      should(overlaps(flowOf(file))).eql([]);
    });
  }

  it('the boxes it checks are real: two nodes at one place overlap, and the layout script separates them', () => {
    const flow: FlowNode[] = [
      { id: 't', type: 'tab' },
      { id: 'a', type: 'inject', name: 'a', z: 't', x: 100, y: 100, wires: [['b']] },
      { id: 'b', type: 'debug', name: 'b', z: 't', x: 150, y: 110, wires: [] },
      // directly under a: where a's status text goes
      { id: 'c', type: 'comment', name: 'c', z: 't', x: 100, y: 135, wires: [] },
    ];
    should(overlaps(flow)).eql([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
    const laid = layoutFlow(flow) as FlowNode[];
    should(overlaps(laid)).eql([]);
    // wired left to right, on the 20 px grid's rows
    const at = (id: string) => laid.find((n) => n.id === id)!;
    should(at('b').x).be.above(at('a').x!);
    for (const n of laid.filter((n) => n.z)) should(n.y! % 10).equal(0);
    // the status room is under the node, as wide as a status text may be
    const [box, status] = nodeBoxes(at('a'));
    should(status[1]).equal(box[3]);
    should(status[2] - status[0]).be.aboveOrEqual(200);
  });

  for (const file of FILES) {
    it(`${file}: each of our nodes reports to a Catch node on its tab`, () => {
      const flow = flowOf(file);
      const catches = flow.filter((n) => n.type === 'catch');
      for (const node of flow.filter((n) => n.z && n.type.startsWith('easy-'))) {
        const caught = catches.some((c) => c.z === node.z && (!Array.isArray(c.scope) || (c.scope as string[]).includes(node.id)));
        should(caught).be.true(`${node.type} ${node.id} has no Catch node`);
      }
    });

    it(`${file}: its account is not named after a step the user has done by then`, () => {
      for (const account of flowOf(file).filter((n) => n.type === 'easy-account')) should(String(account.name ?? '')).not.match(/token/i);
    });
  }
});

describe('docs/examples.md explains every example in a section of its own', () => {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'examples.md'), 'utf8');
  const sections = docs.split(/^## /m).slice(1);
  for (const file of FILES) {
    it(file, () => {
      // a section whose first line after the title names the file
      const own = sections.filter((s) =>
        s
          .split('\n')
          .find((l, i) => i > 0 && l.trim() !== '')
          ?.startsWith(`\`examples/${file}\``),
      );
      should(own).have.length(1, `no section of its own for examples/${file}`);
      should(own[0].length).be.above(300);
    });
  }
});

describe('the demo (npm start): all examples, opening on its overview tab', () => {
  const { flows } = exampleFlows('http://127.0.0.1:1') as { flows: FlowNode[] };

  it('the first tab, where the editor opens, is the overview; nothing on any tab overlaps', () => {
    should(flows.find((n) => n.type === 'tab')).match({ id: 'demo-overview', label: 'Overview' });
    should(overlaps(flows)).eql([]);
  });

  it('"send the current values" reaches every easy-tariff, easy-sensors and easy-plan node through a link, with "resend"', () => {
    const byId = new Map(flows.map((n) => [n.id, n]));
    const button = flows.find((n) => n.z === 'demo-overview' && n.type === 'inject')!;
    should(button).match({ name: 'send the current values', payload: 'resend', payloadType: 'str' });
    const reached = new Set<string>();
    for (const out of button.wires!.flat().map((id) => byId.get(id)!)) {
      should(out.type).equal('link out');
      for (const linkIn of (out.links as string[]).map((id) => byId.get(id)!)) {
        should(linkIn.type).equal('link in');
        should(linkIn.links).containEql(out.id);
        for (const id of linkIn.wires!.flat()) reached.add(id);
      }
    }
    const resenders = flows.filter((n) => ['easy-tariff', 'easy-sensors', 'easy-plan'].includes(n.type));
    should(resenders.length).be.above(5);
    should([...reached].sort()).eql(resenders.map((n) => n.id).sort());
  });
});
