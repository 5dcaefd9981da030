// How the sensors and cost nodes attach to their easy-account config node: find it,
// register (so its errors reach their Catch nodes) and get its hub, or learn in words
// why there is none.

import { shortText } from '../engine/format';
import type { AccountHub, HubStore } from './hub';
import type { AccountNode, Node, NodeAPI, NodeStatus } from './red-types';

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

/** Wraps the (msg, send, done) handler so a throw or rejection always ends in done(err), once. */
export function settleOnce(done: (err?: Error) => void): (err?: unknown) => void {
  let settled = false;
  return (err?: unknown) => {
    if (settled) return;
    settled = true;
    if (err === undefined || err === null) done();
    else done(err instanceof Error ? err : new Error(String(err)));
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
