// How often price changes send a chart (easy-tariff with Chart ticked): at most one an
// interval, the last change charted at the interval's end, on a fake clock.
import should from 'should';
import { CHART_CHANGE_INTERVAL_MS, ChangeCharts } from '../../nodes/lib/runtime/tariff/tariff-chart';
import { FakeClock, installClock } from '../fake-clock';

describe('ChangeCharts: charts sent on price changes', () => {
  let clock: FakeClock;
  beforeEach(() => (clock = installClock(Date.UTC(2026, 10, 25, 12))));
  afterEach(() => clock.uninstall());

  it('a change a second for ten minutes: one chart at once, then one a minute, each charting the latest state', async () => {
    const late: number[] = [];
    const charts = new ChangeCharts(() => late.push(Date.now()));
    const start = Date.now();
    const withPrice: number[] = [];
    for (let s = 0; s < 600; s++) {
      if (charts.changed()) withPrice.push(Date.now() - start);
      await clock.tickAsync(1000);
    }
    should(withPrice).eql([0]);
    should(late.map((t) => t - start)).eql(Array.from({ length: 10 }, (_, k) => (k + 1) * CHART_CHANGE_INTERVAL_MS));
    charts.close();
  });

  it('changes far apart each go with their price; a burst sends one late chart only', async () => {
    const late: number[] = [];
    const charts = new ChangeCharts(() => late.push(Date.now()));
    should(charts.changed()).be.true();
    await clock.tickAsync(CHART_CHANGE_INTERVAL_MS);
    should(charts.changed()).be.true();
    await clock.tickAsync(5000);
    should([charts.changed(), charts.changed(), charts.changed()]).eql([false, false, false]);
    await clock.tickAsync(CHART_CHANGE_INTERVAL_MS);
    should(late).have.length(1);
    await clock.tickAsync(10 * CHART_CHANGE_INTERVAL_MS);
    should(late).have.length(1);
    should(charts.changed()).be.true();
  });

  it('close drops a chart still due', async () => {
    const late: number[] = [];
    const charts = new ChangeCharts(() => late.push(Date.now()));
    charts.changed();
    charts.changed();
    charts.close();
    await clock.tickAsync(2 * CHART_CHANGE_INTERVAL_MS);
    should(late).eql([]);
  });
});
