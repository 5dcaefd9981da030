// easy-tariff: the live price of one tariff, sent on deploy and then exactly when it
// changes; on its second output, the schedule as Dashboard 2 chart data (on request, and
// at each price change when configured). Glue only: the pricing, timers and sensor
// handling are in lib/tariff-watch, the chart data in lib/chart.

import { linkAccount, nodeContextStore, settleOnce } from './lib/runtime/account/account-link';
import { ChangeCharts, ChartMessage, tariffChart } from './lib/runtime/tariff/tariff-chart';
import { TariffWatch } from './lib/runtime/tariff/tariff-watch';
import { noPrice, PricePayload } from './lib/runtime/tariff/price-payload';
import { sensorsFromMessage } from './lib/runtime/common/sensor-message';
import { boundedSetting, chartDays, TARIFF_REFRESH } from './lib/runtime/common/node-settings';
import { nodeRecords } from './lib/runtime/common/records-output';
import type { Node, NodeAPI, NodeDef, NodeMessage } from './lib/runtime/common/red-types';
import { linkPrices, takePriceList } from './lib/runtime/prices/prices-link';
import { StackSource } from './lib/runtime/prices/prices-source';

const SENSORS_KEY = 'lastKnownSensors';

const priceMessage = (payload: PricePayload): NodeMessage => ({ topic: 'price', payload });

export = function register(RED: NodeAPI): void {
  function EasyTariffNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const tariffId = String(config.tariff ?? '').trim();
    const link = linkAccount(RED, node, config.account);
    const floorMinutes = (link.account?.minRefreshMs ?? TARIFF_REFRESH.min * 60_000) / 60_000;
    const refresh = boundedSetting(config.refresh, { ...TARIFF_REFRESH, min: floorMinutes });
    if (refresh.warning) node.warn(refresh.warning);
    // an easy-prices node, when set: its list stacked with the tariff (docs/nodes.md, "Spot prices")
    const prices = linkPrices(RED, config.prices);
    const problem = link.problem ?? (tariffId ? null : 'no tariff id configured') ?? prices.problem;
    let watch: TariffWatch | null = null;
    /** The last price sent, sent again on "price" (e.g. once a database behind the records output exists). */
    let lastPrice: PricePayload | null = null;
    // the third output, when set: the price as InfluxDB points or Home Assistant states (docs/records.md)
    const records = nodeRecords(node, config, (messages) => node.send([null, null, messages]));
    void records?.restore();
    const chartOnChange = config.chart === true;
    let chartOnChangeDays = 1;
    try {
      chartOnChangeDays = chartDays(config.chartDays);
    } catch (err) {
      node.warn(`chart days: ${(err as Error).message.replace('msg.days', 'the setting')}; charting the next 24 h`);
    }

    /** The schedule as chart messages; null while there is no tariff to chart (the price message says why). */
    function chartMessages(days: number): ChartMessage[] | null {
      try {
        return tariffChart(watch!, days);
      } catch {
        return null;
      }
    }
    // charts sent on price changes: at most one a minute, the last change charted late
    const changeCharts = chartOnChange
      ? new ChangeCharts(() => {
          const late = chartMessages(chartOnChangeDays);
          if (late) node.send([null, late]);
        })
      : null;

    // Started on the next turn, once the whole flow exists: what it sends or reports
    // then reaches wired nodes and Catch nodes.
    const starting = setImmediate(() => {
      if (problem) {
        const msg = priceMessage(noPrice(tariffId, problem));
        node.send(msg);
        node.error(problem, msg);
        return;
      }
      watch = new TariffWatch({
        hub: link.hub!,
        tariffId,
        refreshMinutes: refresh.value,
        onPrice: (payload) => {
          lastPrice = payload;
          node.send([
            priceMessage(payload),
            changeCharts?.changed() ? chartMessages(chartOnChangeDays) : null,
            records?.price(payload, Date.now()) ?? null,
          ]);
        },
        onStatus: (status) => node.status(status),
        // the price payload is the data (as core nodes hand on theirs); its reason is the problem, for a debug node
        onProblem: (message, payload) => node.error(message, priceMessage({ ...payload, reason: message })),
        sensorStore: nodeContextStore(node, SENSORS_KEY),
        warn: (text) => node.warn(text),
        prices: prices.book && prices.settings ? new StackSource(prices.book, prices.settings) : null,
      });
      watch.start();
    });
    if (problem) {
      // an account with a bad configuration has already pushed its own status
      if (!link.account?.configError) node.status({ fill: 'red', shape: 'ring', text: problem });
    } else {
      node.status({ fill: 'grey', shape: 'ring', text: 'fetching tariffs…' });
    }

    node.on('input', (msg, send, done) => {
      const finish = settleOnce(done);
      try {
        // the records writer's word on a write, or a command of the records (docs/records.md)
        if (records?.control(msg)) return finish();
        // a price list (Tibber, Nord Pool, power-saver, plain) for the prices node: priced with at once
        if (takePriceList(prices, msg, (text) => node.warn(text))) {
          // with Chart ticked, a new list is charted at once: it changes the hours ahead where the price now may stay
          const chart = changeCharts && watch ? chartMessages(chartOnChangeDays) : null;
          if (chart) {
            changeCharts!.sent();
            send([null, chart]);
          }
          return finish();
        }
        if (!watch) throw new Error(problem ?? 'the node is still starting');
        if (msg.payload === 'schedule') {
          const answer = watch.schedule();
          msg.topic = 'schedule';
          msg.payload = answer.segments;
          Object.assign(msg, {
            tariffId: answer.tariffId,
            tariffName: answer.tariffName,
            currency: answer.currency,
            vat: answer.vat,
            timezone: answer.timezone,
          });
          send(msg);
        } else if (msg.payload === 'price' || msg.payload === 'resend' || msg.resend === true) {
          // one command, two words: "resend" as easy-plan and the demo's "send the current values" say it
          if (!lastPrice) throw new Error('no price sent yet: it comes once the tariffs are fetched');
          send([priceMessage(lastPrice), null, records?.price(lastPrice, Date.now()) ?? null]);
        } else if (msg.payload === 'chart') {
          send([null, tariffChart(watch, chartDays(msg.days))]);
        } else {
          // sensors the rules do not read (e.g. the rest of an easy-sensors poll) are ignored
          for (const { gatewayId, sensorId, value } of sensorsFromMessage(msg)) watch.setSensor(gatewayId, sensorId, value);
        }
        finish();
      } catch (err) {
        finish(err);
      }
    });

    node.on('close', (_removed, done) => {
      clearImmediate(starting);
      changeCharts?.close();
      watch?.close();
      link.release();
      // what the records writer has not confirmed, stored for the next run
      (records?.close() ?? Promise.resolve()).then(() => done());
    });
  }

  RED.nodes.registerType('easy-tariff', EasyTariffNode);
};
