'use strict';
// The examples as one flow file pointed at a simulator, and Node-RED's credentials file
// format: shared by the demo (npm start) and the footprint bench.
const nodeCrypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

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
  return { flows: [...byId.values()], credentials };
}

/** Node-RED's credentials file format: `$` = hex IV + base64 of the AES-256-CTR ciphertext. */
function encryptCredentials(credentials, secret) {
  const key = nodeCrypto.createHash('sha256').update(secret).digest();
  const iv = nodeCrypto.randomBytes(16);
  const cipher = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
  return { $: iv.toString('hex') + cipher.update(JSON.stringify(credentials), 'utf8', 'base64') + cipher.final('base64') };
}

module.exports = { exampleFlows, encryptCredentials };
