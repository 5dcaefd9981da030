// Names people and attackers give meters, gateways and nodes (docs/records.md, "Names"): each
// either reaches InfluxDB and Home Assistant intact or is refused in words. Shared by the
// fast tier (test/lib/records-names) and the real servers (test/servers/names-servers).

export const HOSTILE_NAMES = [
  'a\nb',
  'a\\b',
  'end\\',
  'say "hi"',
  "it's",
  'a,b',
  'k=v',
  'two words',
  'sun ☀️ 🔋',
  'x'.repeat(500),
  'plus+',
  'hash#',
  'tab\there',
  '__proto__',
];

/** Those InfluxDB cannot keep in a name: a line break, a backslash, a tab. */
export const REFUSED_BY_INFLUX = ['a\nb', 'a\\b', 'end\\', 'tab\there'];
