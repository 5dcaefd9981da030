// The slice of the Node-RED runtime API the nodes of this package use, typed here so
// the package needs no @types/node-red (which lags behind Node-RED 4). Types only.

export interface NodeStatus {
  fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  shape?: 'ring' | 'dot';
  text?: string;
}

export interface NodeMessage {
  _msgid?: string;
  topic?: string;
  payload?: unknown;
  [key: string]: unknown;
}

/** One message, or one entry per output: a message, several messages in order, or null. */
export type Outgoing = NodeMessage | Array<NodeMessage | NodeMessage[] | null> | null;
export type SendFn = (msg: Outgoing) => void;
export type DoneFn = (err?: Error) => void;

export interface ContextStore {
  get(key: string, callback: (err: Error | null, value: unknown) => void): void;
  set(key: string, value: unknown, callback: (err: Error | null) => void): void;
}

export interface Node {
  id: string;
  type: string;
  name?: string;
  credentials?: Record<string, string | undefined>;
  on(event: 'input', fn: (msg: NodeMessage, send: SendFn, done: DoneFn) => void): void;
  on(event: 'close', fn: (removed: boolean, done: () => void) => void): void;
  send(msg: Outgoing): void;
  status(status: NodeStatus | Record<string, never>): void;
  log(msg: unknown): void;
  warn(msg: unknown): void;
  error(err: unknown, msg?: NodeMessage): void;
  context(): ContextStore;
}

export interface NodeDef {
  id: string;
  type: string;
  name?: string;
  [key: string]: unknown;
}

export interface NodeAPI {
  nodes: {
    createNode(node: object, config: NodeDef): void;
    getNode(id: string): unknown;
    registerType<T extends Node>(
      type: string,
      constructor: (this: T, config: NodeDef) => void,
      opts?: {
        credentials?: Record<string, { type: 'text' | 'password' }>;
        /** Exported to the editor as RED.settings.<name>; names must start with the camel-cased type. */
        settings?: Record<string, { value: unknown; exportable: boolean }>;
      },
    ): void;
  };
  _(key: string, substitutions?: Record<string, unknown>): string;
}
