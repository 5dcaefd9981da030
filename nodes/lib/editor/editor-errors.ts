// How a dialog's request went wrong, in codes the editor puts in words (its catalogue)
// and HTTP statuses, and the outcome of "Test connection". Never a stack trace, never
// the token.
import { EasyApiError } from '../api/client';
import type { Problem, Tariff } from '../engine/tariff/tariff';

/** How a dialog's request went wrong, for the editor to put in words (its catalogue) and for the HTTP status. */
export type EditorErrorCode =
  | 'bad_request' // the dialog sent something unusable (a non-http URL, no token and no deployed account)
  | 'token_rejected'
  | 'no_access'
  | 'not_found'
  | 'unreachable'
  | 'rate_limited'
  | 'server'
  | 'invalid_response'
  | 'unknown_tariff';

export interface EditorError {
  code: EditorErrorCode;
  /** Plain words, never a stack trace, never the token. */
  message: string;
}

/** The error the editor gets for anything thrown while answering a dialog. */
export function editorError(err: unknown): EditorError {
  if (err instanceof EasyApiError) {
    const byCode: Record<string, EditorErrorCode> = {
      unauthorized: 'token_rejected',
      forbidden: 'no_access',
      not_found: 'not_found',
      rate_limited: 'rate_limited',
      server: 'server',
      network: 'unreachable',
      timeout: 'unreachable',
      aborted: 'unreachable',
      invalid_response: 'invalid_response',
    };
    return { code: byCode[err.code] ?? 'invalid_response', message: err.message };
  }
  if (err instanceof EditorRequestError) return { code: err.code, message: err.message };
  // TypeErrors of the client and the engine are worded for users (bad URL, bad zone, bad tariff)
  const message = err instanceof Error ? err.message : String(err);
  // the dialog's label is "Base URL", the option's name is for library users
  return { code: 'bad_request', message: message.split('\n')[0].replace(/^baseUrl\b/, 'the base URL') };
}

/** A problem with the dialog's request itself, already in words. */
export class EditorRequestError extends Error {
  constructor(
    readonly code: EditorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EditorRequestError';
  }
}

/** HTTP status for an editor error: the dialog's fault 400, the service's 502. */
export function httpStatusOf(error: EditorError): number {
  if (error.code === 'bad_request') return 400;
  if (error.code === 'unknown_tariff') return 404;
  return 502;
}

// Test connection

export interface ConnectionOutcome {
  ok: boolean;
  /** ok | token_rejected | no_access (no tariff access) | unreachable | … (EditorErrorCode) */
  outcome: 'ok' | EditorErrorCode;
  /** Usable tariffs when ok. */
  tariffs: number;
  /** Tariffs left out as invalid (semantics rule 7), when ok. */
  invalid: number;
  message: string;
}

export function connectionOk(parsed: { tariffs: Tariff[]; problems: Problem[] }): ConnectionOutcome {
  const invalid = new Set(parsed.problems.filter((p) => p.severity === 'error').map((p) => p.tariffId ?? '')).size;
  const n = parsed.tariffs.length;
  return { ok: true, outcome: 'ok', tariffs: n, invalid, message: `connected: ${n} tariff${n === 1 ? '' : 's'}` };
}

export function connectionFailed(err: unknown): ConnectionOutcome {
  const e = editorError(err);
  return { ok: false, outcome: e.code, tariffs: 0, invalid: 0, message: e.message };
}
