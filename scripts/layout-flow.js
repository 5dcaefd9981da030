'use strict';
// Lays a flow out on a grid, readable as the editor shows it: each wired group of nodes
// left to right by how far it is from its first node, one row per node of a column, groups
// one under the other in the order they were (comments and Catch nodes included), and room
// under every node for its status text. Used for every file in examples/ (their test
// checks no two boxes overlap, with the same boxes as here) and by the demo's overview tab.
//
//   node scripts/layout-flow.js examples/a.json [examples/b.json …]   rewrites the files
//
// Boxes are estimates of what Node-RED draws (it measures the label in the browser): a
// node is at least 100 px wide, 20 px a step, its label at 8 px a character plus the icon;
// x and y are the node's centre, as in a flow file.

const fs = require('fs');

const GRID = 20;
/** Room under a node for its status (dot and text). */
const STATUS_HEIGHT = 24;
/** How wide a status text may be before it could reach the next column. */
const STATUS_WIDTH = 260;
/** Free space between two columns and between two rows. */
const GAP_X = 60;
const GAP_Y = 20;
const LEFT = 40;
const TOP = 40;

/** The label Node-RED shows, near enough to size the node. */
function labelOf(node) {
  if (node.name) return String(node.name);
  if (node.type === 'inject') return String(node.payload || node.topic || 'inject');
  if (node.type === 'debug') return node.complete === 'true' ? 'msg' : `msg.${node.complete || 'payload'}`;
  if (node.type === 'catch') return node.scope ? `catch: ${node.scope.length}` : 'catch: all';
  return String(node.type);
}

/** The node's box as drawn (without its status): width and height. */
function nodeSize(node) {
  if (node.type === 'junction') return { w: 10, h: 10 };
  const text = labelOf(node).length * 8 + 50 + 7;
  const w = Math.max(100, GRID * Math.ceil(text / GRID));
  const h = Math.max(30, (Number(node.outputs) || (Array.isArray(node.wires) ? node.wires.length : 0)) * 15);
  return { w, h };
}

/**
 * The rectangles a node occupies: its box, and under it the room its status text takes.
 * [left, top, right, bottom] in the flow's coordinates.
 */
function nodeBoxes(node) {
  const { w, h } = nodeSize(node);
  const left = node.x - w / 2;
  const bottom = node.y + h / 2;
  return [
    [left, node.y - h / 2, left + w, bottom],
    [left, bottom, left + Math.max(w, STATUS_WIDTH), bottom + STATUS_HEIGHT],
  ];
}

/** Pairs of nodes of one tab whose boxes (status room included) overlap: [idA, idB]. */
function overlaps(flow) {
  const out = [];
  const drawn = flow.filter((n) => n.z && Number.isFinite(n.x) && Number.isFinite(n.y));
  for (let i = 0; i < drawn.length; i++) {
    for (let j = i + 1; j < drawn.length; j++) {
      const [a, b] = [drawn[i], drawn[j]];
      if (a.z !== b.z) continue;
      const hit = nodeBoxes(a).some((p) => nodeBoxes(b).some((q) => p[0] < q[2] && q[0] < p[2] && p[1] < q[3] && q[1] < p[3]));
      if (hit) out.push([a.id, b.id]);
    }
  }
  return out;
}

/** The flow with every tab's nodes placed on the grid (a new array; config nodes untouched). */
function layoutFlow(flow) {
  const placed = new Map();
  const tabs = new Set(flow.filter((n) => n.z && Number.isFinite(n.x)).map((n) => n.z));
  for (const tab of tabs) {
    let top = TOP;
    const nodes = flow.filter((n) => n.z === tab && Number.isFinite(n.x) && Number.isFinite(n.y));
    for (const group of groupsOf(nodes)) top += placeGroup(group, top, placed);
  }
  return flow.map((n) => (placed.has(n.id) ? { ...n, ...placed.get(n.id) } : n));
}

/** Wired groups (wires taken both ways), in the order of their topmost node as it was. */
function groupsOf(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const near = new Map(nodes.map((n) => [n.id, new Set()]));
  for (const n of nodes) {
    for (const target of (n.wires || []).flat()) {
      if (!byId.has(target)) continue;
      near.get(n.id).add(target);
      near.get(target).add(n.id);
    }
  }
  const seen = new Set();
  const groups = [];
  for (const n of [...nodes].sort((a, b) => a.y - b.y || a.x - b.x)) {
    if (seen.has(n.id)) continue;
    const group = [];
    const todo = [n.id];
    seen.add(n.id);
    while (todo.length) {
      const id = todo.pop();
      group.push(byId.get(id));
      for (const m of near.get(id)) {
        if (seen.has(m)) continue;
        seen.add(m);
        todo.push(m);
      }
    }
    groups.push(group);
  }
  return groups;
}

/** Places one group from `top` down; returns the height it took (a multiple of GRID). */
function placeGroup(group, top, placed) {
  const ids = new Set(group.map((n) => n.id));
  const column = new Map(group.map((n) => [n.id, 0]));
  // longest path from the group's first nodes; a loop is cut where it comes back
  const incoming = new Map(group.map((n) => [n.id, 0]));
  for (const n of group) for (const t of (n.wires || []).flat()) if (ids.has(t)) incoming.set(t, incoming.get(t) + 1);
  const order = [];
  const ready = group.filter((n) => incoming.get(n.id) === 0).map((n) => n.id);
  const left = new Map(incoming);
  while (ready.length) {
    const id = ready.shift();
    order.push(id);
    const node = group.find((n) => n.id === id);
    for (const t of (node.wires || []).flat()) {
      if (!ids.has(t)) continue;
      column.set(t, Math.max(column.get(t), column.get(id) + 1));
      left.set(t, left.get(t) - 1);
      if (left.get(t) === 0) ready.push(t);
    }
  }
  const columns = [];
  for (const n of [...group].sort((a, b) => a.y - b.y || a.x - b.x)) {
    const c = column.get(n.id);
    (columns[c] = columns[c] || []).push(n);
  }
  let x = LEFT;
  let rowsTaken = 0;
  const rowHeight = GRID * Math.ceil((Math.max(...group.map((n) => nodeSize(n).h)) + STATUS_HEIGHT + GAP_Y) / GRID);
  for (const nodes of columns) {
    if (!nodes) continue;
    const width = Math.max(...nodes.map((n) => Math.max(nodeSize(n).w, STATUS_WIDTH)));
    nodes.forEach((n, row) => {
      const { w, h } = nodeSize(n);
      placed.set(n.id, { x: x + w / 2, y: snap(top + row * rowHeight + h / 2) });
    });
    rowsTaken = Math.max(rowsTaken, nodes.length);
    x += width + GAP_X;
  }
  return snap(rowsTaken * rowHeight) + GRID;
}

const snap = (v) => GRID * Math.round(v / GRID);

if (require.main === module) {
  const files = process.argv.slice(2);
  if (!files.length) {
    console.error('usage: node scripts/layout-flow.js flow.json [more.json …]');
    process.exit(2);
  }
  for (const file of files) {
    const flow = layoutFlow(JSON.parse(fs.readFileSync(file, 'utf8')));
    const left = overlaps(flow);
    if (left.length) console.error(`${file}: still overlapping: ${left.map((p) => p.join(' / ')).join(', ')}`);
    fs.writeFileSync(file, JSON.stringify(flow, null, 2) + '\n');
  }
}

module.exports = { layoutFlow, overlaps, nodeBoxes, nodeSize };
