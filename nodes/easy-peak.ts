// easy-peak: maximum demand. One cumulative kWh reading per message (as easy-cost's stream
// mode takes them) -> per meter and for the site the demand window so far with its
// projection, the month's peaks (output 1), the guard for a relay (output 2) and closed
// windows and new peaks for Dashboard 2 (output 3), and with Records set the closed windows
// as InfluxDB points or the site's peak as Home Assistant states (output 4). Glue only: lib/runtime/peak/.
// Messages are handled one at a time, in arrival order (handleInOrder), so the windows never race.

import { handleInOrder, linkAccount, nodeContextStore, problemStatus, reportProblem } from './lib/runtime/account/account-link';
import { PacedStatus } from './lib/runtime/common/paced-status';
import { ExportMeters } from './lib/runtime/common/meter-direction';
import { nodeRecords } from './lib/runtime/common/records-output';
import { PeakStream } from './lib/runtime/peak/peak-stream';
import { peakSettings, PeakSettings } from './lib/runtime/peak/peak-settings';
import type { Node, NodeAPI, NodeDef, NodeMessage, Outgoing } from './lib/runtime/common/red-types';

const STORE_KEY = 'peaks';

export = function register(RED: NodeAPI): void {
  function EasyPeakNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const link = linkAccount(RED, node, config.account);
    let settings: PeakSettings | null = null;
    let problem = link.problem;
    let exportMeters: ExportMeters | undefined;
    if (!problem) {
      try {
        settings = peakSettings(config);
        exportMeters = new ExportMeters(typeof config.exportMeters === 'string' ? config.exportMeters : undefined);
      } catch (err) {
        problem = (err as Error).message;
      }
    }
    const timezone = link.account?.timezone ?? 'UTC';
    // the fourth output, when set: closed windows as InfluxDB points, the site's peak as Home Assistant states (docs/records.md)
    const records = nodeRecords(node, config, (messages) => node.send([null, null, null, messages]));
    void records?.restore();
    // a reading every few seconds from 128 meters: at most one routine status a second
    const status = new PacedStatus((s) => node.status(s));
    let queue: Promise<void> = Promise.resolve();
    const stream = settings
      ? new PeakStream({
          timezone,
          settings,
          store: nodeContextStore(node, STORE_KEY),
          records: records !== null,
          warn: (text) => node.warn(text),
          log: (text) => node.log(text),
          exportMeters,
          countExport: config.countExport === true || config.countExport === 'true',
          onGuard: (msg, s) => {
            node.send([null, msg, null]);
            status.now(s);
          },
        })
      : null;

    if (problem || !stream) {
      const text = problem ?? 'not configured';
      status.now(problemStatus(text));
      // on the next turn, once the whole flow exists, so that Catch nodes get it too
      const told = setImmediate(() => reportProblem(node, text));
      node.on('close', () => clearImmediate(told));
    } else {
      status.now({ fill: 'grey', shape: 'ring', text: 'restoring the peaks…' });
      queue = stream.restore().then(
        (restored) => status.now(restored),
        (err) => reportProblem(node, `the peaks could not be set up: ${(err as Error).message}`),
      );
    }

    async function onReading(msg: NodeMessage): Promise<Outgoing> {
      const out = await stream!.handle(msg, Date.now());
      if (!out) return null;
      msg.payload = out.payload;
      if (out.guard) status.now(out.status);
      else status.routine(out.status);
      const recordMessages = records?.peak(out.payload, out.records);
      return [msg, out.guard, out.charts.length ? out.charts : null, recordMessages?.length ? recordMessages : null];
    }

    handleInOrder(
      node,
      queue,
      (s) => status.now(s),
      (msg) => {
        // the records writer's word on a write, or a command of the records (docs/records.md)
        if (records?.control(msg)) return Promise.resolve(null);
        if (problem || !stream) throw new Error(problem ?? 'not configured');
        return onReading(msg);
      },
    );

    node.on('close', (_removed, done) => {
      status.close();
      link.release();
      // the last save: what changed since, in the context store before Node-RED closes it
      Promise.all([stream ? stream.close() : Promise.resolve(), records?.close()]).then(
        () => done(),
        () => done(),
      );
    });
  }

  RED.nodes.registerType('easy-peak', EasyPeakNode);
};
