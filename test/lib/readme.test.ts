// The README as a new user reads it, on GitHub or on a package page: short, in the order
// they need it, every picture and link reachable from a package page (absolute URLs or
// files the tarball ships), and saying what the example flows really do.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { REPO_BLOB, REPO_RAW, markdownTargets, relativeLinks } from '../markdown-links';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');
const PKG = JSON.parse(read('package.json')) as { files: string[] };
const SHIPPED_DOCS = ['README.md', 'CHANGELOG.md', 'LICENSE', ...PKG.files.filter((f) => f.startsWith('docs/'))];

type FlowNode = { id: string; type: string; [key: string]: unknown };
const example = (name: string) => JSON.parse(read(`examples/${name}.json`)) as FlowNode[];

/** The text of the `##`/`###` section headed `title`, up to the next heading of its level or above. */
function section(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`no section "${title}"`);
  const level = /^#+/.exec(lines[start])![0].length;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

describe('README', () => {
  it('stays under 20 KB: the long reference lives in docs/', () => {
    should(Buffer.byteLength(README)).be.below(20 * 1024);
  });

  it('is ordered as users read it, development and tests last', () => {
    const headings = README.split('\n').filter((l) => /^## /.test(l));
    should(headings).eql([
      '## Quick start (`npm start`)',
      '## Install',
      '## The nodes',
      '## Examples',
      '## Limits and figures',
      '## Compatibility',
      '## Library API',
      '## Development and tests',
    ]);
    // what it is comes first, with one picture
    const intro = README.slice(0, README.indexOf('## Quick start'));
    should(markdownTargets(intro).filter((l) => l.image)).have.length(1);
    should(section(README, 'Development and tests')).match(/^npm test\b/m);
  });

  it('shows each of the five nodes with one screenshot', () => {
    for (const node of ['easy account', 'easy tariff', 'easy sensors', 'easy cost', 'easy plan']) {
      const images = markdownTargets(section(README, node)).filter((l) => l.image);
      should(images).have.length(1, node);
    }
  });

  it('says how to install it before it is published, and what the palette step will be', () => {
    const install = section(README, 'Install');
    should(install).match(/not yet published/);
    should(install)
      .match(/npm pack/)
      .and.match(/npm install \/path\/to\/tariffkit-node-red-easy-[\d.]+\.tgz/);
    should(install).match(/Manage palette/);
    const version = (JSON.parse(read('package.json')) as { version: string }).version;
    should(install).containEql(`tariffkit-node-red-easy-${version}.tgz`);
  });

  it('shows pictures and links by relative paths that resolve in the repository (a clone, offline)', () => {
    const pages = [...new Set([...SHIPPED_DOCS.filter((f) => f.endsWith('.md')), 'docs/examples.md'])];
    const images = pages.flatMap((f) => markdownTargets(read(f))).filter((l) => l.image);
    should(images.length).be.above(5);
    for (const page of pages) {
      for (const { target } of markdownTargets(read(page))) {
        // no link into this repository by absolute URL: it breaks in a clone or offline
        should(target.startsWith(REPO_RAW) || target.startsWith(REPO_BLOB)).be.false(`${page}: ${target}`);
      }
      const dir = path.dirname(page) === '.' ? '' : path.dirname(page);
      for (const file of relativeLinks(read(page), dir))
        should(fs.existsSync(path.join(ROOT, file))).be.true(`${page} links to ${file}, not in the repository`);
    }
  });

  it('the pack keeps them working: every file a shipped page links to or shows is in the tarball', function () {
    this.timeout(60_000);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const inTarball = new Set(packed[0].files.map((f) => f.path));
    should(inTarball.has('README.md')).be.true();
    for (const page of SHIPPED_DOCS.filter((f) => f.endsWith('.md'))) {
      should(inTarball.has(page)).be.true(page);
      const dir = path.dirname(page) === '.' ? '' : path.dirname(page);
      for (const file of relativeLinks(read(page), dir))
        should(inTarball.has(file)).be.true(`${page} links to ${file}, not in the tarball`);
    }
  });

  it('names every dashboard page of the examples, and what the development install weighs', () => {
    const quick = section(README, 'Quick start (`npm start`)');
    for (const file of fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'))) {
      for (const page of example(file.replace(/\.json$/, '')).filter((n) => n.type === 'ui-page'))
        should(quick).containEql(`/dashboard${String(page.path)}`);
    }
    should(quick).match(/~1,000 packages, ~370 MB/);
    should(quick).match(/Overview/);
  });

  it('links to its own sections by anchors that exist', () => {
    const anchors = new Set(
      README.split('\n')
        .filter((l) => /^#{2,3} /.test(l))
        .map((l) =>
          l
            .replace(/^#+ /, '')
            .toLowerCase()
            .replace(/[^\w\- ]/g, '')
            .replace(/ /g, '-'),
        ),
    );
    for (const { target, anchor } of markdownTargets(README)) if (target === '' && anchor) should(anchors.has(anchor)).be.true(anchor);
  });
});

describe('README and docs/examples.md say what the examples do', () => {
  const docs = read('docs/examples.md');
  const row = (title: string) => README.split('\n').find((l) => l.startsWith(`| ${title} |`)) ?? '';

  /** The numbers a switch compares the price with. */
  function thresholds(name: string): string[] {
    return example(name)
      .filter((n) => n.type === 'switch')
      .flatMap((n) => n.rules as Array<{ t: string; v?: string; vt?: string }>)
      .filter((r) => ['gt', 'gte', 'lt', 'lte'].includes(r.t) && r.vt === 'num')
      .map((r) => Number(r.v).toFixed(2));
  }

  it('the relay example: the threshold the switch uses, and no other', () => {
    const [limit] = thresholds('switch-a-relay-when-the-price-goes-up');
    should(limit).be.a.String();
    const text = section(docs, 'Switch a relay when the price goes up');
    for (const said of [row('Switch a relay when the price goes up'), text]) {
      should(said).containEql(limit);
      // every "above 0.xx" / "> 0.xx" / "below 0.xx" names the switch's number
      for (const m of said.matchAll(/(?:above|below|>|<|at or below)\s+(\d+\.\d+)/g)) should(m[1]).equal(limit, said);
    }
  });

  it('the heater example: the duration and window the plan node uses', () => {
    const plan = example('run-the-heater-in-the-cheapest-hours').find((n) => n.type === 'easy-plan')!;
    const hours = Number(plan.durationHours) + Number(plan.durationMinutes ?? 0) / 60;
    for (const said of [row('Run the heater in the cheapest hours'), section(docs, 'Run the heater in the cheapest hours')]) {
      should(said).match(new RegExp(`\\b${hours} ?h(ours)?\\b`));
      should(said).containEql(String(plan.from)).and.containEql(String(plan.until));
    }
  });

  it('the generator alert: changes only, as the flow filters them', () => {
    const filter = example('alert-when-the-generator-runs').find((n) => n.type === 'rbe')!;
    should(filter).match({ func: 'rbei', property: 'payload.value' });
    should(row('Alert when the generator runs')).match(/never on a deploy or restart/);
    should(section(docs, 'Alert when the generator runs')).match(/ignore initial value/);
  });

  it('lists every example once', () => {
    const titles = fs
      .readdirSync(path.join(ROOT, 'examples'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => String(example(f.replace(/\.json$/, '')).find((n) => n.type === 'tab')?.label ?? f));
    should(titles.length).equal(17);
    for (const file of fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json')))
      should(docs).containEql(`examples/${file}`);
  });
});
