// Names in records are data (docs/records.md, "Names"): what InfluxDB cannot keep in a tag is
// refused in words (the rest is escaped by node-red-contrib-influxdb itself, checked on the
// real server in test/servers/), and Home Assistant ids are one to one: two different meters
// never share an object id, a config topic or a unique_id, whatever their names.
import should from 'should';
import fc from 'fast-check';
import { influxNameProblem, pointNameProblem, recordPoint } from '../../nodes/lib/engine/records/influx-points';
import { haMeterText, haObjectId } from '../../nodes/lib/engine/records/home-assistant';
import { streamCostEntities } from '../../nodes/lib/engine/records/ha-figures';
import { RecordsHooks, RecordsOutput, recordsSettings } from '../../nodes/lib/runtime/common/records-output';
import { HOSTILE_NAMES, REFUSED_BY_INFLUX } from '../hostile-names';

/** haObjectId of 0.2.0, the reference for which ids stay. */
function objectIdOf020(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  if (safe === text && safe !== '') return safe;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${safe}_${h.toString(36)}`;
}

/** The slow reference for haMeterText: the pair itself, as JSON. */
const pairText = (g: string | null, t: string | null) => JSON.stringify([g, t]);

const name = fc.oneof(
  fc.constantFrom(null, 'default', 'G', 'G/a', 'a/b', 'b', '\\', '\\s', '/', 'default\\', 'e1.kwh', 'e1_kwh'),
  fc.string({ maxLength: 6, unit: fc.constantFrom('a', '/', '\\', 's', 'd', '_', '.') }),
);

/** A node's side of a records output that only collects the errors it says. */
const hooksSaying = (said: string[]): RecordsHooks => ({
  nodeId: 'n1',
  send: () => undefined,
  store: null,
  warn: () => undefined,
  log: () => undefined,
  error: (text) => said.push(text),
});

describe('names in records', () => {
  it('InfluxDB: a name with a line break, a control character or a backslash is refused in words; quotes, commas, =, spaces, emoji, +, #, 500 characters pass', () => {
    const refused = HOSTILE_NAMES.filter((n) => influxNameProblem(n) !== null);
    should(refused).eql(REFUSED_BY_INFLUX);
    should(influxNameProblem('a\nb')).match(/control character \(a line break/);
    should(influxNameProblem('end\\')).match(/backslash/);
    should(influxNameProblem('x'.repeat(4097))).match(/longer than 4096/);
    const p = recordPoint('energy_cost', { tariff: 'T', meter: 'e1\nkwh' }, { gross: 1 }, 0)!;
    should(pointNameProblem(p)).equal(
      'meter "e1\\nkwh" holds a control character (a line break, a tab…), which InfluxDB cannot keep in a name',
    );
    should(pointNameProblem(recordPoint('energy_cost', { meter: 'say "hi", k=v' }, { gross: 1 }, 0)!)).be.null();
  });

  it('the node name of a plan or a site (a tag) is refused at deploy when InfluxDB cannot keep it; topics with line breaks are refused', () => {
    should(() => recordsSettings({ id: 'p', type: 'easy-plan', name: 'heater\\', records: 'influx-batch' })).throw(
      /records: the node's name "heater\\\\" holds a backslash.*rename the node/,
    );
    should(recordsSettings({ id: 'p', type: 'easy-plan', name: 'heater\\', records: 'homeassistant' })).not.be.null();
    for (const topic of ['a\nb', 'a\tb', 'a+b', 'a/#', '$SYS/x'])
      should(() => recordsSettings({ id: 'p', type: 'easy-plan', records: 'homeassistant', recordsTopic: topic })).throw(
        /not a topic one may publish to/,
      );
    should(() => recordsSettings({ id: 'p', type: 'easy-plan', records: 'homeassistant', recordsPrefix: 'home\nassistant' })).throw(
      /discovery prefix "home\\nassistant" is not a topic/,
    );
  });

  it('object ids are one to one: a text is never the id of another (2,000 generated texts, their ids and ids of ids)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 70 }),
      fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'Z', '0', '_', '-', '.', '/', ' ') }),
    );
    fc.assert(
      fc.property(text, text, (a, b) => {
        for (const x of [a, b]) should(haObjectId(x)).match(/^[A-Za-z0-9_-]{1,72}$/);
        if (a !== b) should(haObjectId(a)).not.equal(haObjectId(b));
        // an id taken as a text is its own id only when it was the text itself
        const id = haObjectId(a);
        if (id !== a) should(haObjectId(id)).not.equal(id);
      }),
      { numRuns: 2000 },
    );
    const hashedOfDot = haObjectId('G/e1.kwh');
    should(haObjectId(hashedOfDot)).not.equal(hashedOfDot); // a topic spelt as another meter's id takes no one's id
  });

  it('ids of 0.2.0 stay, but for texts ending like a hashed id and hashes below 36^5 (reference on 3,000 texts)', () => {
    let changed = 0;
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (t) => {
        const old = objectIdOf020(t);
        const now = haObjectId(t);
        if (now === old) return;
        changed++;
        const endsLikeHash = /_[0-9a-z]{6,7}$/.test(t);
        const shortHash = /_[0-9a-z]{1,5}$/.test(old) && now === old.replace(/_([0-9a-z]{1,5})$/, (_m, h) => `_${h.padStart(6, '0')}`);
        should(endsLikeHash || shortHash || t === '').be.true(`${JSON.stringify(t)}: ${old} -> ${now}`);
      }),
      { numRuns: 3000 },
    );
    should(changed).be.below(3000 * 0.05);
    for (const t of ['e1.kwh', 'DEMO/e1.kwh', 'default', 'G/default', 'kitchen', 'price']) should(haObjectId(t)).equal(objectIdOf020(t));
  });

  it("a meter's text is one to one over (gateway, topic), null for none (reference: the pair as JSON, 3,000 generated pairs)", () => {
    fc.assert(
      fc.property(name, name, name, name, (g1, t1, g2, t2) => {
        if (g1 === '' || g2 === '' || t1 === '' || t2 === '') return; // empty names are none (meterOf)
        const same = pairText(g1, t1) === pairText(g2, t2);
        should(haMeterText(g1, t1) === haMeterText(g2, t2)).equal(same);
      }),
      { numRuns: 3000 },
    );
    should(haMeterText('G', 'a/b')).not.equal(haMeterText('G/a', 'b'));
    should(haMeterText(null, null)).equal('default');
    should(haMeterText(null, 'default')).not.equal('default');
    should(haMeterText('G', null)).not.equal(haMeterText('G', 'default'));
    should(haMeterText('DEMO', 'e1.kwh')).equal('DEMO/e1.kwh'); // as 0.2.0 named it: its ids stay
  });

  it('two different meters never share an entity: object ids, config topics, state topics and unique_ids differ (1,000 generated pairs)', () => {
    const entitiesOf = (gateway: string | null, topic: string | null) =>
      streamCostEntities({
        currency: 'EUR',
        meter: { gateway, topic, name: 'shown' },
        today: { fromMs: 0, energy: 1, gross: 1 },
        week: { fromMs: 0, energy: 1, gross: 1 },
        month: { fromMs: 0, energy: 1, gross: 1 },
        reading: { value: 5 },
      });
    fc.assert(
      fc.property(name, name, name, name, (g1, t1, g2, t2) => {
        if (g1 === '' || g2 === '' || t1 === '' || t2 === '' || pairText(g1, t1) === pairText(g2, t2)) return;
        const a = new Set(entitiesOf(g1, t1).map((e) => e.objectId));
        for (const e of entitiesOf(g2, t2))
          should(a.has(e.objectId)).be.false(`${e.objectId} of ${pairText(g1, t1)} and ${pairText(g2, t2)}`);
      }),
      { numRuns: 1000 },
    );
    should(entitiesOf(null, null).map((e) => e.objectId)).containEql('default_cost_today'); // the default meter: `default_`, as docs/records.md says
  });

  it('two meters whose texts share a hash: the second is refused in words, once, and takes nothing of the first', () => {
    // a collision of the 32-bit hash among texts made of characters that all become `_` (birthday search)
    const seen = new Map<string, string>();
    let pair: [string, string] | null = null;
    const symbols = '.,:;!?@%';
    for (let n = 0; pair === null; n++) {
      let t = '';
      for (let k = n, i = 0; i < 10; i++, k = Math.floor(k / symbols.length)) t += symbols[k % symbols.length];
      const id = haObjectId(t);
      const other = seen.get(id);
      if (other !== undefined) pair = [other, t];
      else seen.set(id, t);
    }
    should(haObjectId(pair[0])).equal(haObjectId(pair[1]));
    const said: string[] = [];
    const out = new RecordsOutput(recordsSettings({ id: 'n1', type: 'easy-cost', records: 'homeassistant' })!, hooksSaying(said));
    const reading = (topic: string, value: number) => ({
      currency: 'EUR',
      meter: { gateway: null, topic, name: topic },
      today: { fromMs: 0, energy: value, gross: value },
      reading: { value },
    });
    const first = out.streamCost(reading(pair[0], 1));
    should(first.filter((m) => String(m.topic).endsWith('/config'))).have.length(3);
    for (let i = 0; i < 3; i++) should(out.streamCost(reading(pair[1], 2))).eql([]);
    should(said).have.length(1);
    should(said[0]).match(
      /^records: meter ".*" would take the Home Assistant entities of meter ".*" \(their ids share a hash\); its entities are not sent/,
    );
    // the first meter's states are its own
    should(out.streamCost(reading(pair[0], 3)).map((m) => (m.payload as { value: number }).value)).eql([3, 3, 3]);
  });

  it("a point whose name InfluxDB cannot keep is not sent, said once in words; the meter's other points and other meters go on", () => {
    const said: string[] = [];
    const out = new RecordsOutput(recordsSettings({ id: 'n1', type: 'easy-cost', records: 'influx-batch' })!, hooksSaying(said));
    const payload = (topic: string) => ({ tariffId: 'T', currency: 'EUR', meter: { gateway: 'G', topic }, today: { fromMs: 0, gross: 1 } });
    for (let i = 0; i < 5; i++) should(out.streamCost(payload('e1\nkwh'))).eql([]);
    should(said).eql([
      'records: a energy_cost_running point is not written: its meter "e1\\nkwh" holds a control character (a line break, a tab…), which InfluxDB cannot keep in a name',
    ]);
    const sent = out.streamCost(payload('say "hi", k=v ☀️'));
    should((sent[0].payload as Array<{ tags: Record<string, string> }>)[0].tags.meter).equal('say "hi", k=v ☀️');
  });
});
