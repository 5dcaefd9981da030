// easy-peak's power factor of a window so far (docs/semantics.md rule 66): the hours a
// power-factor meter's readings covered over its ∫(1/pf) dt, at most 1 wherever it is used
// (output 1's meter part, the site's kVA so far, its projection, a closed window). The ∫ is
// a running sum of hours ÷ pf that grows as long as the node runs: after a year its float
// noise on a reading a second is a few parts in a billion, enough to read a hair above 1.
import should from 'should';
import { openPeakStream } from './peak-stream-support';

const FAR = Date.parse('2100-01-01T00:00:00Z');
const MIN = 60_000;

describe('easy-peak power factor so far', () => {
  it('a meter reading 1 every second after a year: the window reads 1, never above, and the site projects kVA no lower than its kW', async () => {
    const T = Date.parse('2026-03-04T09:00:00Z');
    const YEAR = 365 * 86_400_000;
    const { stream } = await openPeakStream('Europe/London', { minutes: '15', staleMinutes: '60', maxGapMinutes: '10' });
    try {
      // the meters' first readings a year before (the ∫ of a year: 8,760 hours), then 8 kW at a power factor of 1
      await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 0, ts: T - YEAR }, FAR);
      await stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 1, ts: T - YEAR }, FAR);
      const above: number[] = [];
      for (let t = T; t <= T + 14 * MIN; t += 1000) {
        const kw = (await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 1000 + ((t - T) / 3_600_000) * 8, ts: t }, FAR))!;
        const pf = (await stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 1, ts: t }, FAR))!;
        const [meter, site] = [pf.payload.meter as any, pf.payload.site as any];
        if (t > T && meter.window.powerFactor !== 1) above.push(meter.window.powerFactor);
        // kVA = kW ÷ pf: with a power factor of 1 throughout, the site's figures are its kWh meter's
        should(site.window.projectedKw).not.be.below((kw.payload.meter as any).window.projectedKw, `at ${new Date(t).toISOString()}`);
        should(site.window.energy).not.be.below((kw.payload.meter as any).window.energy);
      }
      should(above).eql([]);
    } finally {
      await stream.close();
    }
  });
});
