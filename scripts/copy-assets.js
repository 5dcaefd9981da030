'use strict';
// tsc compiles nodes/*.ts to dist/nodes; Node-RED wants each node's .html and the
// locales/ catalogue beside the .js, so copy them there after the compile.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const src = path.join(root, 'nodes');
const dst = path.join(root, 'dist', 'nodes');

function copyTree(from, to, filter) {
  if (!fs.existsSync(from)) return;
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, entry.name);
    const b = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(a, b, filter);
    else if (filter(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(a, b);
    }
  }
}

copyTree(src, dst, (name) => name.endsWith('.html') || name.endsWith('.json'));
// Node-RED looks for a node's icons in icons/ beside its .js file, not at the package root.
copyTree(path.join(root, 'icons'), path.join(dst, 'icons'), (name) => name.endsWith('.svg') || name.endsWith('.png'));
