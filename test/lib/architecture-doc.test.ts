// docs/architecture.md's layout says in one line what each source file is: this keeps it
// matching the tree, both ways (a file added without its line, a line left for a file
// that is gone or moved).
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';

const ROOT = path.join(__dirname, '..', '..');
/** The folders of nodes/lib's layers: the layer itself and each part's folder below it. */
const LIB_FOLDERS = ['engine', 'api', 'runtime', 'editor'].flatMap((layer) => {
  const dir = path.join(ROOT, 'nodes', 'lib', layer);
  const parts = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  return [`nodes/lib/${layer}/`, ...parts.map((p) => `nodes/lib/${layer}/${p.name}/`)];
});

/** The folders whose every source file has its line, and which files count as source there. */
const SOURCE_FOLDERS: Array<[string, RegExp]> = [
  ['nodes/', /\.ts$/],
  ['nodes/lib/', /\.ts$/],
  ...LIB_FOLDERS.map((folder): [string, RegExp] => [folder, /\.ts$/]),
  ['resources/', /\.js$/],
  ['sim/', /\.ts$/],
  ['bench/', /\.(ts|js)$/],
  ['scripts/', /\.js$/],
];

/** A folder a newcomer reads in one sitting: its files can be listed on one screen. */
const MOST_FILES_A_FOLDER = 12;

/** The files the layout block names, as paths: a line at the margin opens a folder, indented lines name its files. */
function documentedFiles(doc: string): Set<string> {
  const layout = /## Layout\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc);
  should(layout).not.be.null();
  const out = new Set<string>();
  let folder: string | null = null;
  for (const line of layout![1].split('\n')) {
    const first = line.trim().split(/\s+/)[0];
    if (!first) continue;
    if (!/^\s/.test(line)) {
      folder = first.endsWith('/') ? first : null;
      continue;
    }
    if (folder && /^[\w.-]+\.\w+$/.test(first)) out.add(folder + first);
  }
  return out;
}

function sourceFiles(): Set<string> {
  const out = new Set<string>();
  for (const [folder, pattern] of SOURCE_FOLDERS) {
    for (const entry of fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
      if (entry.isFile() && pattern.test(entry.name)) out.add(folder + entry.name);
    }
  }
  return out;
}

describe('docs/architecture.md', () => {
  const documented = documentedFiles(fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8'));

  it('has a line for every source file', () => {
    const missing = [...sourceFiles()].filter((f) => !documented.has(f));
    should(missing).eql([], `add a line to docs/architecture.md's Layout for: ${missing.join(', ')}`);
  });

  it(`every folder of nodes/lib holds at most ${MOST_FILES_A_FOLDER} files`, () => {
    const crowded = LIB_FOLDERS.map((folder) => {
      const files = fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).filter((e) => e.isFile());
      return `${folder} ${files.length}`;
    }).filter((row) => Number(row.split(' ')[1]) > MOST_FILES_A_FOLDER);
    should(crowded).eql([], `split these folders by part: ${crowded.join(', ')}`);
  });

  it('names no file that is not there', () => {
    const gone = [...documented].filter((f) => !fs.existsSync(path.join(ROOT, f)));
    should(gone).eql([], `docs/architecture.md's Layout names files that do not exist: ${gone.join(', ')}`);
  });
});
