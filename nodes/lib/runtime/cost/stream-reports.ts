// What easy-cost's stream mode adds to each message beside the totals: the live generator
// report (when switched on) and the month-end projection with the daily charge. Kept out
// of cost-stream: it reads the stream's sums and kept readings, never changes them.
import { sensorsUsedBy, SensorRef, Tariff } from '../../engine/tariff/tariff';
import { isFromFuture } from '../../engine/common/future-readings';
import type { CostStream, StreamOutput } from './cost-stream';
import { streamReading } from './cost-inputs';
import { generatorChoice, GeneratorSettings } from '../generator/generator-report';
import { GeneratorStore, StreamGenerator } from '../generator/stream-generator';
import { streamExtras } from './stream-projection';
import { demandLine, SiteBill, siteBillOf } from '../../engine/peak/bill-message';
import { importTerms } from './stream-output';
import type { StoredAhead } from '../../engine/common/stored-checks';

export class StreamReports {
  private generator: StreamGenerator | null = null;
  /** easy-peak's latest bill wired in (rule 63): in memory, as easy-peak sends one with every reading. */
  private bill: SiteBill | null = null;

  constructor(
    private readonly settings: GeneratorSettings | null,
    private readonly dailyCharge: number | null,
    private readonly timezone: string,
    private readonly store: GeneratorStore,
    /** Says once what a read of the store dropped. */
    private readonly warn: (message: string) => void = () => undefined,
    /** Says once per node that stored state lies ahead of this clock (shared with the totals' store). */
    private readonly ahead?: StoredAhead,
  ) {}

  /** The sensors to poll: the tariff's, and the generator's when the report is on. */
  sensorsFor(tariff: Tariff): SensorRef[] {
    const refs = sensorsUsedBy(tariff);
    const choice = this.choice(tariff);
    if (choice && !refs.some((r) => r.gatewayId === choice.ref.gatewayId && r.sensorId === choice.ref.sensorId)) refs.push(choice.ref);
    return refs;
  }

  /** The sensors whose values price the intervals. */
  pricedBy(tariff: Tariff): SensorRef[] {
    return sensorsUsedBy(tariff);
  }

  private choice(tariff: Tariff) {
    if (!this.settings) return null;
    try {
      return generatorChoice(this.settings, tariff);
    } catch {
      return null; // said at the next reading, at Catch
    }
  }

  /** A polled sensor value; one stamped in the future (isFromFuture) would stop the report's clock there. */
  recordSensor(gatewayId: string, sensorId: string, ts: number, value: number, now: number): void {
    if (this.generator?.follows(gatewayId, sensorId) && !isFromFuture(ts, now)) this.generator.record(ts, value);
  }

  /** The generator for `tariff` (made, and its stored state read, when the choice changes); throws in words when there is none. */
  private async generatorFor(tariff: Tariff): Promise<StreamGenerator | null> {
    if (!this.settings) return null;
    const choice = generatorChoice(this.settings, tariff);
    const g = this.generator;
    if (g && g.choice.on === choice.on && g.follows(choice.ref.gatewayId, choice.ref.sensorId)) return g;
    await g?.flush();
    const fresh = new StreamGenerator(choice, this.timezone, this.store);
    await fresh.restore(this.warn, this.ahead);
    this.generator = fresh;
    return fresh;
  }

  /**
   * A message of the generator's sensor wired in (an easy-sensors message): recorded, and
   * true when the stream has nothing to do with it (not a sensor the tariff reads). easy-peak's
   * bill is kept, its amounts' gross with the VAT of `source` (what prices the import meters).
   */
  async takesMessage(msg: Record<string, unknown>, tariff: Tariff, now: number, source: unknown = tariff): Promise<boolean> {
    // easy-peak's output 1 wired in: its bill kept for the projection (rule 63), never a reading; its gross with the energy's VAT
    const bill = siteBillOf(msg.payload, now, importTerms(tariff, source).vat);
    if (bill !== undefined) return ((this.bill = bill), true);
    if (!this.settings || typeof msg.payload !== 'object' || msg.payload === null) return false;
    const g = await this.generatorFor(tariff).catch(() => null); // said with the next reading
    let reading;
    try {
      reading = streamReading(msg, now);
    } catch {
      return false; // the stream says what is wrong with it
    }
    if (!g || reading.sensorId === undefined || !g.follows(reading.gatewayId, reading.sensorId)) return false;
    g.record(reading.ts, reading.value);
    return !sensorsUsedBy(tariff).some((r) => r.gatewayId === reading.gatewayId && r.sensorId === reading.sensorId);
  }

  /** The stream's message with the reports added, and its status with the projection; `source` priced the import meters. */
  async addTo(out: StreamOutput, stream: CostStream, tariff: Tariff, source: unknown = tariff): Promise<StreamOutput> {
    const { site } = out;
    const extras = streamExtras(site, importTerms(tariff, source), this.timezone, this.dailyCharge, source);
    const payload: Record<string, unknown> = { ...out.payload, ...extras.payload };
    const shown = extras.payload.projection as Parameters<typeof demandLine>[4] | undefined;
    const demand =
      this.bill && shown && site.newest !== null
        ? demandLine(this.bill, site.newest, monthOf(shown), importTerms(tariff, source).vat, shown)
        : null;
    if (demand) payload.projection = { ...shown, ...demand };
    let g: StreamGenerator | null;
    try {
      g = await this.generatorFor(tariff);
    } catch (err) {
      // the reading is counted all the same: a report set up wrong must not cost a total
      const problem = (err as Error).message;
      return {
        ...out,
        payload: { ...payload, generator: null, generatorProblem: problem },
        status: { fill: 'yellow', shape: 'dot', text: `${out.status.text}${extras.statusNote} · no generator report` },
      };
    }
    if (g) {
      const change = out.payload.change as
        { energy: number; net: number; gross: number; unpricedEnergy: number; resets: number } | undefined;
      const reading = out.payload.reading as { ts: number } | undefined;
      const meter = out.payload.meter as { gateway: string | null; topic: string | null } | undefined;
      // an export meter's credit is no cost of the generator's runs
      if (change && reading && meter && !out.payload.ignored && out.payload.direction !== 'export') {
        const kept = stream.totalsOf({ gateway: meter.gateway, topic: meter.topic })?.kept;
        // the interval this reading closes starts at the kept reading before it (kept ascending:
        // looked for from the newest end, so a full 48 h window costs nothing more)
        let start = NaN;
        for (let i = (kept?.length ?? 0) - 1; i >= 0; i--) {
          if (kept!.ts(i) < reading.ts) {
            start = kept!.ts(i);
            break;
          }
        }
        g.addChange(start, change);
      }
      payload.generator = g.payload(site.newest ?? NaN);
    }
    return { ...out, payload, status: { ...out.status, text: out.status.text + extras.statusNote } };
  }

  /** Saves the generator's state (the node is closing). */
  async close(): Promise<void> {
    await this.generator?.flush();
  }
}

const monthOf = (p: Record<string, unknown>) => ({ from: p.fromMs as number, to: p.toMs as number });
