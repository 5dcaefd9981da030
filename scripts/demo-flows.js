'use strict';
// The examples as one flow file pointed at a simulator, and Node-RED's credentials file
// format: shared by the demo (npm start) and the footprint bench.
const nodeCrypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const { layoutFlow } = require('./layout-flow');

/**
 * Every example in one flow file. The examples share their account config node (same
 * id); it is kept once and pointed at the simulator; so are the dashboard's base and
 * theme, identical in each dashboard example. Any other id used twice is a
 * mistake in the examples and stops the demo rather than deploy half of it.
 */
function exampleFlows(simUrl, token = 'demo-token') {
  const dir = path.join(ROOT, 'examples');
  const byId = new Map();
  const accounts = new Set();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    for (const node of JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      const seen = byId.get(node.id);
      // the dashboard's base and theme are shared by the dashboard examples, byte for byte
      const sharedConfig = seen && ['ui-base', 'ui-theme'].includes(node.type) && JSON.stringify(seen) === JSON.stringify(node);
      if (seen && !sharedConfig && !(node.type === 'easy-account' && seen.type === 'easy-account')) {
        throw new Error(`examples/${file}: node id ${node.id} is also used by another example`);
      }
      if (node.type === 'easy-account') {
        accounts.add(node.id);
        byId.set(node.id, { ...node, name: 'demo account (simulator)', baseUrl: simUrl });
      } else {
        byId.set(node.id, node);
      }
    }
  }
  const credentials = {};
  for (const id of accounts) credentials[id] = { token };
  return { flows: layoutFlow(withOverview([...byId.values()])), credentials };
}

/** Nodes that send their current values again on a message: easy-tariff and easy-plan on "resend", easy-sensors on any. */
const RESENDS = new Set(['easy-tariff', 'easy-sensors', 'easy-plan']);

/**
 * The demo's first tab, where the editor opens: what the tabs are, and a "send the current
 * values" button. Everything was sent at deploy, before a browser connected, so the Debug
 * sidebar starts empty; the button reaches, through a link, every node that can resend on
 * every tab (a link in per tab, added for the demo only: the examples stay as shipped).
 */
function withOverview(flows) {
  const tabs = flows.filter((n) => n.type === 'tab');
  const overview = 'demo-overview';
  const linkOut = 'demo-overview-send';
  const linkIns = [];
  for (const tab of tabs) {
    const targets = flows.filter((n) => n.z === tab.id && RESENDS.has(n.type)).map((n) => n.id);
    if (!targets.length) continue;
    const id = `demo-resend-${tab.id}`;
    linkIns.push({ id, type: 'link in', z: tab.id, name: 'send the current values', links: [linkOut], x: 100, y: -1, wires: [targets] });
  }
  const list = tabs.map((t) => `- ${t.label}`).join('\n');
  const pages = dashboardPages(flows).join(', ');
  return [
    {
      id: overview,
      type: 'tab',
      label: 'Overview',
      disabled: false,
      info: `The demo: every example flow on its own tab, deployed against the simulator (token demo-token, gateway DEMO).\n\n${list}\n\nDashboard pages: ${pages}.`,
    },
    {
      id: 'demo-overview-about',
      type: 'comment',
      z: overview,
      name: `Every example is on its own tab; the dashboard pages: ${pages}`,
      info: list,
      x: 100,
      y: 0,
      wires: [],
    },
    {
      id: 'demo-overview-resend',
      type: 'inject',
      z: overview,
      name: 'send the current values',
      props: [{ p: 'payload' }],
      repeat: '',
      crontab: '',
      once: false,
      onceDelay: 0.1,
      topic: '',
      payload: 'resend',
      payloadType: 'str',
      x: 100,
      y: 1,
      wires: [[linkOut]],
    },
    {
      id: linkOut,
      type: 'link out',
      z: overview,
      name: 'to every tab',
      mode: 'link',
      links: linkIns.map((n) => n.id),
      x: 300,
      y: 1,
      wires: [],
    },
    ...flows,
    ...linkIns,
  ];
}

/** Node-RED's credentials file format: `$` = hex IV + base64 of the AES-256-CTR ciphertext. */
function encryptCredentials(credentials, secret) {
  const key = nodeCrypto.createHash('sha256').update(secret).digest();
  const iv = nodeCrypto.randomBytes(16);
  const cipher = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
  return { $: iv.toString('hex') + cipher.update(JSON.stringify(credentials), 'utf8', 'base64') + cipher.final('base64') };
}

/** The dashboard pages of a flow as paths ('/dashboard/energy'): each ui-page under its ui-base. */
function dashboardPages(flows) {
  const bases = new Map(flows.filter((n) => n.type === 'ui-base').map((n) => [n.id, n.path || '/dashboard']));
  return flows.filter((n) => n.type === 'ui-page').map((p) => `${bases.get(p.ui) ?? '/dashboard'}${p.path}`);
}

module.exports = { exampleFlows, encryptCredentials, dashboardPages };
