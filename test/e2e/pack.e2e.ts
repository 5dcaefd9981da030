// What `npm publish` ships from a clean clone: the committed tree (git archive HEAD, no
// dist/, nothing git-ignored), packed with `npm pack`, whose prepack must build dist/.
// Every file package.json names must be in the tarball, and nothing that is not the
// package's. (The clone borrows this checkout's node_modules instead of `npm ci`: the
// same lockfile, minutes less.)
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { relativeLinks } from '../markdown-links';
import { NODE_TYPES, PKG, ROOT } from './env';

const npmBin = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackedFile {
  path: string;
  size: number;
}

describe('e2e: npm pack of a clean clone', function () {
  this.timeout(300_000);
  let tmp = '';
  let clone = '';
  let files = new Set<string>();
  const manifest = PKG as typeof PKG & { main: string; types: string; files: string[] };
  const DOCUMENTS = [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    // docs/ files (not the screenshots folder): the documents and the Grafana dashboard
    ...manifest.files.filter((f) => f.startsWith('docs/') && path.extname(f) !== ''),
  ];

  before(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-pack-'));
    clone = path.join(tmp, 'clone');
    fs.mkdirSync(clone);
    const archive = path.join(tmp, 'head.tar');
    assert.ok(fs.existsSync(path.join(ROOT, '.git')), 'this test packs the committed tree: it needs a git checkout');
    execFileSync('git', ['archive', '--format=tar', '-o', archive, 'HEAD'], { cwd: ROOT, stdio: 'pipe' });
    execFileSync('tar', ['-xf', archive, '-C', clone]);
    assert.ok(!fs.existsSync(path.join(clone, 'dist')), 'a clean clone has no dist/');
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'junction');
    const out = execFileSync(npmBin, ['pack', '--json', '--pack-destination', tmp], {
      cwd: clone,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
    const packed = JSON.parse(out) as Array<{ files: PackedFile[] }>;
    files = new Set(packed[0].files.map((f) => f.path));
  });

  after(function () {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('ships main and types (prepack built dist/)', function () {
    for (const file of [manifest.main, manifest.types]) assert.ok(files.has(file), `${file} not in the tarball`);
  });

  it("ships each node's code, editor file, help, message catalogue and icon", function () {
    for (const type of NODE_TYPES) {
      const js = PKG['node-red'].nodes[type];
      const dir = path.posix.dirname(js);
      for (const file of [js, `${dir}/${type}.html`, `${dir}/locales/en-US/${type}.html`, `${dir}/locales/en-US/${type}.json`]) {
        assert.ok(files.has(file), `${file} not in the tarball`);
      }
      const icon = /\bicon:\s*'([^']+)'/.exec(fs.readFileSync(path.join(clone, 'nodes', `${type}.html`), 'utf8'));
      if (icon) assert.ok(files.has(`${dir}/icons/${icon[1]}`), `${type}'s icon ${icon[1]} not in the tarball`);
    }
  });

  it("ships every file of the folders package.json lists, and the package's own documents", function () {
    for (const entry of manifest.files) {
      const listed = path.join(clone, entry);
      const expected = fs.statSync(listed).isDirectory()
        ? fs
            .readdirSync(listed)
            .filter((f) => fs.statSync(path.join(listed, f)).isFile())
            .map((f) => `${entry}/${f}`)
        : [entry];
      if (!entry.startsWith('dist/')) assert.ok(expected.length > 0, `${entry} is empty`);
      for (const file of expected) assert.ok(files.has(file), `${file} not in the tarball`);
    }
    // the documents the README links to travel with the package
    for (const file of DOCUMENTS) assert.ok(files.has(file), file);
    for (const link of relativeLinks(fs.readFileSync(path.join(clone, 'README.md'), 'utf8')))
      assert.ok(files.has(link), `README links to ${link}`);
  });

  it('ships nothing else: no sources, tests, simulator, benchmark or caches', function () {
    // docs/screenshots: the pictures the README shows by relative paths
    const stray = [...files].filter(
      (f) => !/^(dist\/nodes\/|resources\/|icons\/|examples\/|docs\/screenshots\/)/.test(f) && !DOCUMENTS.includes(f),
    );
    assert.deepStrictEqual(stray, []);
    const shipped = [...files].filter((f) => f.startsWith('dist/nodes/') && f.endsWith('.ts') && !f.endsWith('.d.ts'));
    assert.deepStrictEqual(shipped, [], 'TypeScript sources');
  });
});
