import should from 'should';
import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('package.json', () => {
  it('is the scoped MIT package Node-RED can find', () => {
    should(pkg.name).equal('@tariffkit/node-red-easy');
    should(pkg.license).equal('MIT');
    should(pkg.keywords).containEql('node-red');
    should(pkg.repository.url).be.a.String();
    should(pkg.bugs.url).be.a.String();
  });

  it('targets Node-RED >=3.0.2 and Node >=18.5 with CommonJS output', () => {
    should(pkg['node-red'].version).equal('>=3.0.2');
    should(pkg.engines.node).equal('>=18.5');
    const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
    should(tsconfig.compilerOptions.module).equal('commonjs');
    should(tsconfig.compilerOptions.strict).be.true();
  });

  it('pins exact versions of every dependency', () => {
    for (const deps of [pkg.dependencies, pkg.devDependencies]) {
      for (const [name, version] of Object.entries(deps as Record<string, string>)) {
        should(version).match(/^\d+\.\d+\.\d+$/, `${name}@${version} is not pinned`);
      }
    }
  });

  it('keeps node-red out of the runtime dependencies', () => {
    should(pkg.dependencies).not.have.property('node-red');
    should(pkg.devDependencies).have.property('node-red');
  });
});

describe('package.json and README promise what the compatibility job tested', () => {
  const table = require(path.join(root, 'scripts', 'compat-table.js'));
  const results = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'compatibility.json'), 'utf8'));
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  type Cell = { nodeRed: string; node: string; result: string };
  const cells = results.cells as Cell[];
  const oldest = (versions: string[]) => [...versions].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];

  it("README's compatibility section is the one rendered from docs/compatibility.json", () => {
    should(table.currentCompatSection(readme)).equal(table.renderCompatSection(results));
  });

  it('every cell passed, at the oldest Node-RED and Node.js the package accepts', () => {
    should(cells.length).be.above(0);
    for (const c of cells) should(c.result).equal('pass', `Node-RED ${c.nodeRed} on Node.js ${c.node}`);
    should(pkg['node-red'].version).equal(`>=${oldest(cells.map((c) => c.nodeRed))}`);
    should(pkg.engines.node).equal(
      `>=${oldest(cells.map((c) => c.node))
        .split('.')
        .slice(0, 2)
        .join('.')}`,
    );
  });

  it('the results are of this version of the package', () => {
    should(results.package).equal(pkg.version);
  });
});
