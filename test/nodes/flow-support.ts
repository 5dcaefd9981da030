// Shared by the sensors and cost node suites: the real Node-RED runtime through
// node-red-node-test-helper, the simulator on loopback, and small waits on messages.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startSimulator, Simulator } from '../../sim/server';
import easyAccount = require('../../nodes/easy-account');
import { STATUS_EVERY_MS } from '../../nodes/lib/runtime/common/paced-status';

/** The part of node-red-node-test-helper (untyped) these suites use. */
interface TestHelper {
  init(runtimePath: string, settings?: object): void;
  settings(settings: object): object;
  load(nodes: unknown[], flow: object[], credentials: object): Promise<void>;
  unload(): Promise<void>;
  getNode(id: string): any;
  _redNodes: any;
}
export const helper: TestHelper = require('node-red-node-test-helper');
helper.init(require.resolve('node-red'));

// Captured before any suite installs fake timers, so waits stay in real time.
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;

export const TOKEN = 'demo-token';
export const GATEWAY = 'DEMO';

export interface FlowNode {
  id: string;
  type: string;
  [key: string]: unknown;
}

export function accountNode(sim: Simulator, timezone = 'Europe/London'): FlowNode {
  return { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone };
}

/** A Catch node for every node of the flow, wired to helper node `caught`. */
export function catchNodes(): FlowNode[] {
  return [
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
}

export async function loadFlow(nodeModules: unknown[], flow: FlowNode[]): Promise<void> {
  await helper.load([easyAccount, ...nodeModules], flow, { acc: { token: TOKEN } });
}

/** The ports the simulators of this process have had. */
const usedPorts = new Set<number>();

/**
 * A simulator on a port no simulator of this process had before (unless `port` is given).
 * easy-account keeps its last good tariffs in-process by node id and base URL (a redeploy
 * while offline prices on), so a test whose simulator got an earlier test's port found that
 * test's tariffs (a 403 case priced 0.25 from a test run minutes before): ports taken are
 * held open until a fresh one comes.
 */
export async function withSimulator(opts: Parameters<typeof startSimulator>[0] = {}): Promise<Simulator> {
  if (opts.port !== undefined) return startSimulator(opts);
  const taken: Simulator[] = [];
  try {
    for (;;) {
      const sim = await startSimulator({ ...opts, port: 0 });
      if (!usedPorts.has(sim.port)) {
        usedPorts.add(sim.port);
        return sim;
      }
      taken.push(sim);
    }
  } finally {
    await Promise.all(taken.map((sim) => sim.close()));
  }
}

interface Receiver {
  on(event: 'input', fn: (msg: Record<string, unknown>) => void): void;
}

/**
 * Collects what a helper node receives; `next(n)` resolves with the next n messages
 * (already received ones first) or rejects after `ms` with what came so far.
 */
export function inbox(id: string) {
  const node = helper.getNode(id) as unknown as Receiver;
  const received: Array<Record<string, any>> = [];
  let waiter: (() => void) | null = null;
  node.on('input', (msg) => {
    received.push(msg);
    waiter?.();
  });
  return {
    received,
    // (the wait is real time and only bounds a failure: long enough for a loaded machine's
    // first fetch over loopback, so that no test depends on how fast the machine is; under
    // mocha's 10 s, so that a test's failure still says which message it waited for)
    next(n = 1, ms = 8_000): Promise<Array<Record<string, any>>> {
      return new Promise((resolve, reject) => {
        const timer = realSetTimeout(() => reject(new Error(`${id}: expected ${n} more message(s), got ${received.length}`)), ms);
        const check = () => {
          if (received.length < n) return;
          realClearTimeout(timer);
          waiter = null;
          resolve(received.splice(0, n));
        };
        waiter = check;
        check();
      });
    },
  };
}

/** Waits a little real time, to show that nothing (more) arrives. */
export function quiet(ms = 200): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

export { FakeClock, installClock } from '../fake-clock';
import { FakeClock, installClock, until } from '../fake-clock';

/** What the tests of a suite share (simulatorHooks): the simulator, the fake clock and the file context store a test made. */
export interface SuiteState {
  sim: Simulator;
  clock: FakeClock | null;
  context: FileContext | null;
}

/**
 * The hooks of a suite run against the simulator: before each test a fake clock at `clockAt`
 * (when given) and a simulator started with `simulator()`'s options (read then, so they see
 * that clock); after each the flow unloaded (through the test's file context when it set
 * one), the clock put back and the simulator closed. A test sets `clock` or `context` on the
 * state it returns to have them ended with it.
 */
export function simulatorHooks(opts: { simulator?: () => Parameters<typeof startSimulator>[0]; clockAt?: number } = {}): SuiteState {
  const state: SuiteState = { sim: undefined as unknown as Simulator, clock: null, context: null };
  beforeEach(async () => {
    if (opts.clockAt !== undefined) state.clock = installClock(opts.clockAt);
    state.sim = await withSimulator(opts.simulator?.());
  });
  afterEach(async () => {
    await (state.context ? state.context.unload() : helper.unload());
    state.context = null;
    state.clock?.uninstall();
    state.clock = null;
    await state.sim.close();
  });
  return state;
}

/** Waits out stream mode's status pacing, so the status shown is the latest (runtime/paced-status). */
export function statusSettled(): Promise<void> {
  return quiet(STATUS_EVERY_MS + 50);
}

/** Records every status a node shows (the helper reports each call as `call:status`). */
export function statuses(id: string): Array<{ fill?: string; shape?: string; text?: string }> {
  const seen: Array<{ fill?: string; shape?: string; text?: string }> = [];
  helper.getNode(id).on('call:status', (call: { args: [object] }) => seen.push(call.args[0]));
  return seen;
}

/** Every warning node `id` said (node.warn) in this test, oldest first (the helper spies on the prototype shared by every node). */
export function warnings(id: string): string[] {
  const calls = (helper as any)._NodePrototype.warn.getCalls().filter((c: any) => c.thisValue.id === id);
  return calls.map((c: any) => String(c.args[0]));
}

/** The last status node `id` showed (the helper spies on the prototype shared by every node). */
export function lastStatus(id: string): { fill?: string; shape?: string; text?: string } | undefined {
  const calls = (helper as any)._NodePrototype.status.getCalls().filter((c: any) => c.thisValue.id === id);
  return calls.length ? calls[calls.length - 1].args[0] : undefined;
}

/**
 * Waits (in real time, however the clock is faked) until node `id` shows a status other
 * than `starting`, the one it shows while it starts (easy-peak's `restoring the peaks…`
 * while it reads its store): the event that proves the start is over, not a guessed sleep.
 */
export function startedPast(id: string, starting: string): Promise<void> {
  return until(`${id}'s status past "${starting}"`, () => (lastStatus(id)?.text ?? starting) !== starting);
}

/**
 * A localfilesystem default context store in a fresh folder, as a real Node-RED has:
 * `use()` before a load returns the "module" that loads the stores (the helper skips that
 * part of a start); `restart()` stops the runtime as Node-RED does (flows, then stores,
 * which writes them to disk) and starts it again; `remove()` after the unload.
 */
const contextDirs: string[] = [];
/** Removes a test's context folder when the process ends, once nothing of the runtime can read it. */
function removeAtExit(dir: string): void {
  if (contextDirs.length === 0) process.once('exit', () => contextDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  contextDirs.push(dir);
}

export class FileContext {
  readonly dir: string;

  constructor(prefix = 'easy-context-') {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  }

  use(): () => Promise<void> {
    helper.settings({ contextStorage: { default: { module: 'localfilesystem', config: { dir: this.dir, flushInterval: 3600 } } } });
    return () => helper._redNodes.loadContextsPlugin();
  }

  /** `between`: runs once the flows stopped, while the stores are still open (a hand edit of what they hold). */
  async restart(between?: () => Promise<void>): Promise<void> {
    await helper._redNodes.stopFlows();
    await between?.();
    await helper._redNodes.closeContextsPlugin();
    await helper._redNodes.loadContextsPlugin();
    await helper._redNodes.loadFlows();
    await helper._redNodes.startFlows();
  }

  /**
   * Ends a test with this store. The helper's unload starts a clean of the stores it does not
   * await, and a clean that lists a folder while another clean (or a flush) changes it fails
   * with ENOENT scandir …/context/<node> as an unhandled rejection (seen in CI under load).
   * So while unloading, every clean runs after the one before, is awaited, and lists again if
   * a folder went away under it; the store closes after the last. The folder itself goes when
   * the test process ends.
   */
  async unload(): Promise<void> {
    const contexts = (helper as any)._context;
    const clean = contexts.clean;
    let cleaning: Promise<unknown> = Promise.resolve();
    const cleanOnce = (config: unknown) =>
      clean.call(contexts, config).catch((err: NodeJS.ErrnoException) => {
        if (err?.code === 'ENOENT') return clean.call(contexts, config);
        throw err;
      });
    contexts.clean = (config: unknown) => (cleaning = cleaning.then(() => cleanOnce(config)));
    try {
      await helper._redNodes.stopFlows();
      await contexts.clean({ allNodes: {} });
      await helper.unload();
      await cleaning;
      await helper._redNodes.closeContextsPlugin();
    } finally {
      contexts.clean = clean;
    }
    removeAtExit(this.dir);
    helper.settings({});
  }
}

/** An example flow as the package ships it (examples/<name>.json). */
export function exampleFlow(name: string): FlowNode[] {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', `${name}.json`), 'utf8'));
}

/** Dashboard 2's config nodes: left out where an example runs under the test helper. */
export const DASHBOARD_CONFIG = new Set(['ui-base', 'ui-theme', 'ui-page', 'ui-group']);
/** Where an example's messages arrive: read by helper nodes in their place. */
const READ_BY_HELPER = new Set(['debug', 'ui-text', 'ui-chart']);

/**
 * An example as shipped, run against `sim`: its account (id `acc`) pointed at the simulator in
 * `timezone`, Dashboard 2's config nodes left out, debug nodes and widgets as helper nodes, and
 * `edit` applied to every other node.
 */
export function exampleOnSimulator(name: string, sim: Simulator, timezone = 'UTC', edit = (n: FlowNode) => n): FlowNode[] {
  return exampleFlow(name)
    .filter((n) => !DASHBOARD_CONFIG.has(n.type))
    .map((n) => {
      if (n.type === 'easy-account') return { ...n, id: 'acc', baseUrl: sim.url, timezone };
      const node = READ_BY_HELPER.has(n.type) ? { id: n.id, type: 'helper', z: n.z } : edit(n);
      return node.account ? { ...node, account: 'acc' } : node;
    });
}
