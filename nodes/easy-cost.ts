// easy-cost: what energy cost under one tariff of the account.
//   batch:  msg.payload = readings -> the computeCost result
//   stream: one cumulative reading per message -> running totals per meter and for the
//           site, kept in the node's context (default store) across restarts (lib/cost-stream)
//   range:  msg.from/msg.to or msg.period -> archival readings fetched and costed (lib/cost-range)
//   compare: readings (message or archive) costed under every tariff of the account (lib/cost-compare)
// Range and stream modes add a generator report when it is switched on (lib/generator-report).
// Messages are handled one at a time, in arrival order, so stream totals never race.
// Second output: stream mode, each closed day, week and month as a bar for Dashboard 2;
// compare mode, the table as bars.

import { handleInOrder, linkAccount, nodeContextStore, reportProblem } from './lib/runtime/account/account-link';
import { costBatch, costStatus } from './lib/runtime/cost/cost-batch';
import { periodWords } from './lib/runtime/cost/cost-inputs';
import { CostRange } from './lib/runtime/cost/cost-range';
import { compareCost } from './lib/runtime/cost/cost-compare';
import { generatorChoice, GeneratorSettings } from './lib/runtime/generator/generator-report';
import { dailyChargeSetting } from './lib/runtime/cost/stream-projection';
import { maxPowerSetting } from './lib/runtime/common/node-settings';
import { StreamReports } from './lib/runtime/cost/stream-reports';
import { CostStream, StoredAhead } from './lib/runtime/cost/cost-stream';
import type { AccountHub, TariffSnapshot } from './lib/runtime/account/hub';
import { SensorFollower } from './lib/runtime/tariff/sensor-follower';
import { PacedStatus } from './lib/runtime/common/paced-status';
import { findTariff, tariffById, TariffsSeen } from './lib/runtime/common/tariff-lookup';
import { costSiteBatch, exportPriceFor, exportSettings, ExportStacks, isSitePayload, ledgerSettings } from './lib/runtime/cost/cost-export';
import { nodeRecords } from './lib/runtime/common/records-output';
import type { Node, NodeAPI, NodeDef, NodeMessage, Outgoing } from './lib/runtime/common/red-types';
import { linkPrices, takePriceList } from './lib/runtime/prices/prices-link';
import { StackSource } from './lib/runtime/prices/prices-source';

type Mode = 'batch' | 'stream' | 'range' | 'compare';
const MODES: Mode[] = ['batch', 'stream', 'range', 'compare'];
/** Tariffs change rarely; the account's shortest refresh among its users wins anyway. */
const TARIFF_REFRESH_MIN = 60;
/** Poll interval for the live values of the sensors a tariff's rules read (stream mode). */
const SENSOR_POLL_SEC = 60;
const TOTALS_KEY = 'totals';
const GENERATOR_KEY = 'generator';

const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : typeof x === 'number' ? String(x) : '');

export = function register(RED: NodeAPI): void {
  function EasyCostNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const mode: Mode = MODES.includes(config.mode as Mode) ? (config.mode as Mode) : 'batch';
    const tariffId = String(config.tariff ?? '').trim();
    const link = linkAccount(RED, node, config.account);
    // compare mode costs every tariff; its own tariff, when set, is only marked `current`
    let dailyCharge: number | null = null;
    // rule 10: a rise faster than this between two readings of a meter is a jump, not usage
    let maxPowerKw = maxPowerSetting('');
    let setting: string | null = null;
    // rule 47: which meters export, and what export earns
    let exporting = exportSettings({});
    try {
      dailyCharge = dailyChargeSetting(config.dailyCharge);
      maxPowerKw = maxPowerSetting(config.maxPowerKw);
      exporting = exportSettings(config);
    } catch (err) {
      setting = (err as Error).message;
    }
    // an easy-prices node, when set: costs at its list stacked with the tariff (docs/nodes.md, "Spot prices"); compare
    // mode compares that stack with the account's tariffs, so it needs the node's tariff to stack over
    const prices = linkPrices(RED, config.prices);
    const stacks = prices.book && prices.settings ? new StackSource(prices.book, prices.settings) : null;
    // rule 61: export meters credited at an easy-prices node's list with the export's add-ons, when chosen
    let exportStacks: ExportStacks | null = null;
    try {
      if (exporting.pricesId !== null) exportStacks = new ExportStacks(linkPrices(RED, exporting.pricesId), exporting);
    } catch (err) {
      setting ??= (err as Error).message;
    }
    // a price list sent to the node goes to its prices node, or to the export's when it has only that
    const listsTo = prices.book === null && prices.problem === null && exportStacks ? exportStacks.link : prices;
    const stackNeedsTariff =
      mode === 'compare' && stacks && !tariffId
        ? "compare mode with Prices compares the stack over the node's tariff: set Tariff (or clear Prices to compare the tariffs alone)"
        : null;
    const problem =
      link.problem ?? (tariffId || mode === 'compare' ? setting : 'no tariff configured') ?? prices.problem ?? stackNeedsTariff;
    const generator: GeneratorSettings | null =
      config.generator === true || config.generator === 'true'
        ? { gatewayId: text(config.generatorGateway), sensorId: text(config.generatorSensor), on: text(config.generatorOn) }
        : null;
    const hub = link.hub as AccountHub;
    // the last output, when set: costs and generator reports as InfluxDB points or Home
    // Assistant states (docs/records.md); after the bars in stream and compare modes
    const recordsIndex = mode === 'stream' || mode === 'compare' ? 2 : 1;
    const records = nodeRecords(node, config, (messages) => node.send(withRecords(mode === 'stream' ? [null, null] : [null], messages)));
    void records?.restore();
    const timezone = link.account?.timezone ?? 'UTC';
    let unwatchTariffs: (() => void) | null = null;
    let snapshot: TariffSnapshot | null = null;
    let queue: Promise<void> = Promise.resolve();
    const range = new CostRange(hub, timezone, maxPowerKw);
    // stream totals show at most one routine status a second; everything else at once
    const status = new PacedStatus((s) => node.status(s));
    // stored state from a later clock (this one behind) is said once for both stores
    const ahead = new StoredAhead((text) => node.warn(text));
    const stream = new CostStream({
      timezone,
      tariffId,
      store: nodeContextStore(node, TOTALS_KEY),
      warn: (text) => node.warn(text),
      log: (text) => node.log(text),
      ahead,
      maxPowerKw,
      exportMeters: exporting.meters,
      productionMeters: exporting.production,
      exportPricing: { exportVat: exporting.exportVat, floorAtZero: exporting.floorAtZero, key: exporting.key },
      ledger: ledgerSettings(exporting),
    });
    // stream mode reads the live values of the sensors its tariff's rules read
    const reports = new StreamReports(
      generator,
      dailyCharge,
      timezone,
      nodeContextStore(node, GENERATOR_KEY),
      (text) => node.warn(text),
      ahead,
    );
    const sensors = new SensorFollower(hub, SENSOR_POLL_SEC, (poll) => {
      const now = Date.now();
      for (const sensor of poll.error ? [] : poll.sensors) {
        stream.recordSensor(poll.gatewayId, sensor.id, sensor.timestamp, sensor.value, now);
        reports.recordSensor(poll.gatewayId, sensor.id, sensor.timestamp, sensor.value, now);
      }
    });

    async function tariffs(): Promise<TariffsSeen> {
      return snapshot && snapshot.fetchedAt !== null ? snapshot : await hub.refreshTariffs();
    }

    /** What prices the readings: the tariff, or the prices node's stack over it (the kept prices read back first). */
    async function sourceOf(t: ReturnType<typeof findTariff>): Promise<unknown> {
      return stacks ? stacks.stackWhenRead(t) : t;
    }

    async function tariff(): Promise<ReturnType<typeof findTariff>> {
      return findTariff(await tariffs(), tariffId);
    }

    async function onStream(msg: NodeMessage): Promise<Outgoing> {
      const t = await tariff();
      const source = await sourceOf(t);
      if (await reports.takesMessage(msg, t, Date.now(), source)) return null;
      const exported = await exportPriceFor(exporting, t, await tariffs(), exportStacks);
      const counted = await stream.handle(msg, t, Date.now(), exported?.shown ?? null, source, exported?.source);
      if (!counted) return null;
      // the month-end projection, the daily charge and the generator report beside the totals
      const out = await reports.addTo(counted, stream, t, source);
      msg.payload = out.payload;
      status.routine(out.status);
      return withRecords([msg, out.bars.length ? out.bars : null], records?.streamCost(out.payload));
    }

    async function onBatch(msg: NodeMessage): Promise<Outgoing> {
      const t = await tariff();
      if (isSitePayload(msg.payload)) {
        const site = costSiteBatch(
          msg.payload,
          msg.sensors,
          t,
          await exportPriceFor(exporting, t, await tariffs(), exportStacks),
          exporting,
          timezone,
          maxPowerKw,
        );
        msg.payload = site.payload;
        status.now(site.status);
        return [msg];
      }
      const { payload, result } = costBatch(msg.payload, msg.sensors, t, timezone, Date.now(), maxPowerKw, await sourceOf(t));
      msg.payload = payload;
      status.now(costStatus(result, periodWords(result.from, result.to, timezone)));
      return withRecords([msg], records?.rangeCost(payload, undefined));
    }

    async function onRange(msg: NodeMessage): Promise<Outgoing> {
      const t = await tariff();
      const { payload, result, period } = await range.cost(
        msg,
        t,
        Date.now(),
        generator ? generatorChoice(generator, t) : null,
        await sourceOf(t),
        // an export meter's range is credited at the export price
        {
          meters: exporting.meters,
          price: async () => exportPriceFor(exporting, t, await tariffs(), exportStacks),
          exportVat: exporting.exportVat,
          floorAtZero: exporting.floorAtZero,
        },
      );
      msg.payload = payload;
      status.now(costStatus(result, period));
      return withRecords([msg], records?.rangeCost(payload, msg.period));
    }

    async function onCompare(msg: NodeMessage): Promise<Outgoing> {
      const current = snapshot && snapshot.fetchedAt !== null ? snapshot : await hub.refreshTariffs();
      const stack = stacks ? await stacks.stackWhenRead(findTariff(current, tariffId)) : null;
      const out = await compareCost(msg, current, range, timezone, Date.now(), tariffId, maxPowerKw, stack);
      msg.payload = out.payload;
      status.now(out.status);
      return [msg, out.chart];
    }

    /** The outputs with the records (if any) on the records output. */
    function withRecords(outputs: Array<NodeMessage | NodeMessage[] | null>, recordMessages: NodeMessage[] | undefined): Outgoing {
      if (!recordMessages?.length) return outputs.length === 1 ? outputs[0] : outputs;
      const all: Array<NodeMessage | NodeMessage[] | null> = [...outputs];
      while (all.length < recordsIndex) all.push(null);
      all[recordsIndex] = recordMessages;
      return all;
    }

    if (problem) {
      status.now({ fill: 'red', shape: 'ring', text: problem });
    } else {
      status.now({ fill: 'grey', shape: 'ring', text: tariffId ? `${mode} · ${tariffId}` : mode });
      unwatchTariffs = hub.watchTariffs(TARIFF_REFRESH_MIN, (s) => {
        snapshot = s;
        if (mode !== 'stream') return;
        // the sensors the tariff's rules read price the intervals; the generator's is polled too
        const t = tariffById(s, tariffId);
        if (t && sensors.follow(reports.sensorsFor(t))) stream.followSensors(reports.pricedBy(t));
      });
      // restored at deploy, so a restart says at once what it carried over (or that it could not)
      if (mode === 'stream') {
        queue = stream.restore().then(
          (restored) => status.now(restored),
          (err) => reportProblem(node, `running totals could not be set up: ${(err as Error).message}`),
        );
      }
    }

    const handlers: Record<Mode, (msg: NodeMessage) => Promise<Outgoing>> = {
      batch: onBatch,
      stream: onStream,
      range: onRange,
      compare: onCompare,
    };

    handleInOrder(
      node,
      queue,
      (s) => status.now(s),
      (msg) => {
        // the records writer's word on a write, or a command of the records (docs/records.md)
        if (records?.control(msg)) return Promise.resolve(null);
        // a price list (Tibber, Nord Pool, power-saver, plain) for the prices node: costed with from now on
        if (takePriceList(listsTo, msg, (text) => node.warn(text))) return Promise.resolve(null);
        if (problem) throw new Error(problem);
        return handlers[mode](msg);
      },
    );

    node.on('close', (_removed, done) => {
      unwatchTariffs?.();
      status.close();
      sensors.close();
      range.abort();
      link.release();
      // the last saves of the stream totals and of the generator report (each saved every few
      // minutes): what changed since, in the context store before Node-RED closes it
      const reportsSaved = reports.close().catch((err) => {
        node.warn(`the generator report could not be saved: ${(err as Error).message}`);
      });
      Promise.all([stream.close(), reportsSaved, records?.close()]).then(
        () => done(),
        () => done(),
      );
    });
  }

  RED.nodes.registerType('easy-cost', EasyCostNode);
};
