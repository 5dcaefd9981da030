// easy-sensors: the sensors of one gateway, polled through the account (one poll per
// gateway however many nodes watch it), sent one message per sensor or one for all.
// Glue only: polling, messages, error reports and the watchdog are in lib/sensors-poll,
// payloads, staleness and change tracking in lib/sensor-payload.

import { linkAccount, reportProblem, settleOnce } from './lib/runtime/account/account-link';
import { boundedSetting, SENSOR_INTERVAL } from './lib/runtime/common/node-settings';
import { parseSensorFilter } from './lib/runtime/sensors/sensor-payload';
import { SensorsPoll } from './lib/runtime/sensors/sensors-poll';
import type { Node, NodeAPI, NodeDef } from './lib/runtime/common/red-types';

export = function register(RED: NodeAPI): void {
  function EasySensorsNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    // between 10 s and a day; none, 0 or a negative one means the default (no warning)
    const interval = boundedSetting(config.interval, SENSOR_INTERVAL);
    if (interval.warning) node.warn(interval.warning);
    const gateway = String(config.gateway ?? '').trim();
    const link = linkAccount(RED, node, config.account);
    const problem = link.problem ?? (gateway ? null : 'no gateway configured');
    const poll = problem
      ? null
      : new SensorsPoll({
          hub: link.hub!,
          gateway,
          intervalSec: interval.value,
          output: config.output === 'all' ? 'all' : 'each',
          onlyChanged: config.onlyChanged === true || config.onlyChanged === 'true',
          filter: parseSensorFilter(config.sensors),
          timezone: link.account?.timezone ?? 'UTC',
          send: (message) => node.send(message),
          status: (status) => node.status(status),
          problem: (text) => reportProblem(node, text, { topic: gateway, gateway }),
          warn: (text) => node.warn(text),
          log: (text) => node.log(text),
        });

    if (problem) {
      node.status({ fill: 'red', shape: 'ring', text: problem });
    } else {
      node.status({ fill: 'grey', shape: 'ring', text: `polling ${gateway}…` });
      poll!.start();
    }

    // Any input sends the current values at once, whatever `onlyChanged` says.
    node.on('input', (msg, send, done) => {
      const finish = settleOnce(done);
      try {
        if (!poll) throw new Error(problem!);
        for (const message of poll.current()) send({ ...msg, ...message });
        finish();
      } catch (err) {
        finish(err);
      }
    });

    node.on('close', (_removed, done) => {
      poll?.close();
      link.release();
      done();
    });
  }

  RED.nodes.registerType('easy-sensors', EasySensorsNode);
};
