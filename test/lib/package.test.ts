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

  it('targets Node-RED >=3.0.0 and Node >=18.5 with CommonJS output', () => {
    should(pkg['node-red'].version).equal('>=3.0.0');
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
