// `npm run sim`: start the simulator on loopback and say where it is and how to use it.
// Flags: --port N (default 8787, env EASY_SIM_PORT), --host H (default 127.0.0.1, env
// EASY_SIM_HOST), and every fault switch as --kebab-case value (e.g. --latency-ms 2000
// --scope tariffs --drop 3); env EASY_SIM_FAULTS may hold the switches as JSON.
import { DEMO_TOKENS, startSimulator } from './server';
import { DEMO_GATEWAY, GENERATOR_ON_MS, GENERATOR_PERIOD_MS } from './demo-data';
import { Faults, faultsFromEntries, normaliseFaults } from './faults';

export const DEFAULT_PORT = 8787;

export interface CliOptions {
  port: number;
  host: string;
  faults: Partial<Faults>;
}

/** Flags and environment to options; throws on a stray argument, a bad port or a bad fault switch. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unexpected argument ${argv[i]}`);
    const value = match[2] ?? argv[++i];
    // A bare boolean switch (--tariffs-removed) is true.
    if (value === undefined || value.startsWith('--')) {
      if (value !== undefined) i--;
      pairs.push([match[1], 'true']);
    } else pairs.push([match[1], value]);
  }
  const port = Number(pairs.find(([k]) => k === 'port')?.[1] ?? env.EASY_SIM_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port ${port}`);
  const host = pairs.find(([k]) => k === 'host')?.[1] ?? env.EASY_SIM_HOST ?? '127.0.0.1';
  const fromEnv = env.EASY_SIM_FAULTS ? (JSON.parse(env.EASY_SIM_FAULTS) as Partial<Faults>) : {};
  const fromFlags = faultsFromEntries(pairs.filter(([k]) => k !== 'port' && k !== 'host'));
  const faults = { ...fromEnv, ...fromFlags };
  // Checked here so a mistyped switch stops the CLI with a message naming it.
  normaliseFaults(faults);
  return { port, host, faults };
}

async function main(): Promise<void> {
  const options = parseCli(process.argv.slice(2), process.env);
  const sim = await startSimulator(options);
  const lines = [
    `easy API simulator listening on ${sim.url}`,
    `  tariffs: ${sim.url}/easy/v1/tariffs.json`,
    `  sensors: ${sim.url}/easy/v1/gateways/${DEMO_GATEWAY}.json   (CSV: .csv)`,
    `  archive: ${sim.url}/easy/v1/gateways/${DEMO_GATEWAY}/e1.kwh/data.json?from=${new Date().toISOString().slice(0, 10)}T00:00Z`,
    `  tokens:  ${Object.keys(DEMO_TOKENS).join(', ')}   (Authorization: Bearer <token>)`,
    `  generator (input "1" of ${DEMO_GATEWAY}, tariff DEMO-GENERATOR): on for the first ${GENERATOR_ON_MS / 60_000} minutes of every ${GENERATOR_PERIOD_MS / 60_000} (from :00)`,
    `  faults:  ${sim.url}/__sim/faults   ${JSON.stringify(options.faults)}`,
  ];
  console.log(lines.join('\n'));
  const stop = () => {
    sim.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(`simulator: ${err.message}`);
    process.exit(1);
  });
}
