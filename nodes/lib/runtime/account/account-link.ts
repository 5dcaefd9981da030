// How the sensors and cost nodes attach to their easy-account config node: find it,
// register (so its errors reach their Catch nodes) and get its hub, or learn in words
// why there is none.

import { shortText } from '../../engine/common/format';
import type { AccountHub, HubStore } from './hub';
import type { Node, NodeAPI, NodeMessage, NodeStatus, Outgoing } from '../common/red-types';
import { RefusedReading } from '../common/refusal-burst';

/** The easy-account config node as its users see it (nodes/easy-account.ts). */
export interface AccountNode extends Node {
  baseUrl: string;
  timezone: string;
  /** null when the configuration cannot work (configError says why) or after close. */
  hub: AccountHub | null;
  configError: Error | null;
  /** The floor of its tariff nodes' refresh, ms (one minute unless the flow file's tuning sets it). */
  minRefreshMs: number;
  /** The proxy settings deployed (mode and URL; user and password are credentials). */
  proxyMode?: unknown;
  proxyUrl?: unknown;
  /** Keyed by node id; Node-RED 4 also routes the config node's errors to these users' Catch nodes. */
  users: Record<string, Node>;
  registerUser(node: Node): void;
  deregisterUser(node: Node): void;
}

export interface AccountLink {
  account: AccountNode | null;
  hub: AccountHub | null;
  /** Why there is no hub, for the status and the error of each message. */
  problem: string | null;
  /** Deregisters from the account; call on close. */
  release(): void;
}

export function linkAccount(RED: NodeAPI, node: Node, accountId: unknown): AccountLink {
  const account = (typeof accountId === 'string' && accountId ? RED.nodes.getNode(accountId) : null) as AccountNode | null;
  if (!account) return { account: null, hub: null, problem: 'no easy-account configured', release: () => undefined };
  account.registerUser(node);
  const release = () => account.deregisterUser(node);
  if (!account.hub) {
    const reason = account.configError ? account.configError.message : 'the account is not available';
    return { account, hub: null, problem: `account: ${reason}`, release };
  }
  return { account, hub: account.hub, problem: null, release };
}

/**
 * A problem as a Node-RED user reads it at a Catch node, in the log and in the status.
 * Node-RED shows an Error as its toString(): "TypeError: msg.period must be …" for the
 * engine's own TypeErrors and RangeErrors (which library callers may test for). Here the
 * text is a sentence of what is wrong and what is expected, without the class name; the
 * original error (class and stack) stays as `cause`, its `code` as `code`.
 */
export class NodeProblem extends Error {
  readonly cause: unknown;
  readonly code?: string;

  constructor(text: string, cause?: unknown) {
    super(asSentence(text));
    this.name = 'NodeProblem';
    this.cause = cause;
    const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
    if (typeof code === 'string') this.code = code;
  }

  override toString(): string {
    return this.message;
  }
}

/** "batch mode needs …" → "Batch mode needs ….": a capital when the text starts with a plain word, and a full stop. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  const capital = /^[a-z]+\b(?![.([])/.test(trimmed) ? trimmed[0].toUpperCase() + trimmed.slice(1) : trimmed;
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The problem a thrown value stands for, worded for users (see NodeProblem). */
export function nodeProblem(err: unknown): NodeProblem {
  if (err instanceof NodeProblem) return err;
  return new NodeProblem(err instanceof Error ? err.message : String(err), err);
}

/** Wraps the (msg, send, done) handler so a throw or rejection always ends in done(err), once, worded for users. */
export function settleOnce(done: (err?: Error) => void): (err?: unknown) => void {
  let settled = false;
  return (err?: unknown) => {
    if (settled) return;
    settled = true;
    if (err === undefined || err === null) done();
    else done(nodeProblem(err));
  };
}

/**
 * Reports a problem of the node's own (no input message caused it) to Catch nodes. As
 * core nodes do when they have no data to hand on (http request), the reason is the
 * payload, where a debug node shows it; msg.error.message has the same text.
 */
export function reportProblem(node: Node, text: string, fields: Record<string, unknown> = {}): void {
  node.error(text, { ...fields, payload: text });
}

/** A value kept under `key` in the node's context (default store), as promises. */
export function nodeContextStore(node: Node, key: string): HubStore {
  return {
    load: () => new Promise<unknown>((resolve, reject) => node.context().get(key, (err, value) => (err ? reject(err) : resolve(value)))),
    save: (value: unknown) =>
      new Promise<void>((resolve, reject) => node.context().set(key, value, (err) => (err ? reject(err) : resolve()))),
  };
}

/** The red status of a failure: short in the editor; the full text is in the log and at the Catch node. */
export function problemStatus(problem: unknown): NodeStatus {
  return { fill: 'red', shape: 'ring', text: shortText(problem instanceof Error ? problem.message : String(problem)) };
}

/**
 * A node's messages handled one at a time, in arrival order, after `first` (restoring what
 * it stored), so its state never races: what `handle` returns is sent and the message
 * done; a throw ends it in done(err) with a red status; a RefusedReading ends it when its
 * burst does (one error per burst, shown, the others end without one).
 */
export function handleInOrder(
  node: Node,
  first: Promise<unknown>,
  show: (status: NodeStatus) => void,
  handle: (msg: NodeMessage) => Promise<Outgoing>,
): void {
  let queue: Promise<unknown> = first.catch(() => undefined);
  node.on('input', (msg, send, done) => {
    const finish = settleOnce(done);
    queue = queue.then(async () => {
      try {
        const out = await handle(msg);
        if (out) send(out);
        finish();
      } catch (err) {
        if (err instanceof RefusedReading) {
          // the queue goes on, this message ends when its burst does
          void err.burst.then((burstError) => {
            if (burstError) show(problemStatus(burstError));
            finish(burstError ?? undefined);
          });
          return;
        }
        show(problemStatus(err));
        finish(err);
      }
    });
  });
}
