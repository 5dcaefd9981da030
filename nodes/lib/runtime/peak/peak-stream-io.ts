// What PeakStream is given (its settings, store, clocks and callbacks) and what it gives for
// a message: output 1's payload, output 2's guard message, output 3's charts, the status and
// the windows for the records output.
import type { ExportMeters } from '../common/meter-direction';
import type { PeakStatus, windowRecord } from './peak-output';
import type { PeakSettings } from './peak-settings';

export interface PeakStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface GuardMessage {
  topic: 'guard';
  payload: unknown;
  [key: string]: unknown;
}

export interface PeakOutput {
  payload: Record<string, unknown>;
  /** Output 2: sent when the guard changes, and with the first reading after a deploy. */
  guard: GuardMessage | null;
  /** Output 3: closed windows of the site and a new monthly peak, as Dashboard 2 chart messages. */
  charts: Array<Record<string, unknown>>;
  status: PeakStatus;
  /** For the records output: the windows this reading closed, the meter's and the site's (engine/records' peakPoints). */
  records: PeakRecords | null;
}

export interface PeakRecords {
  minutes: number;
  closed: Array<ReturnType<typeof windowRecord>>;
}

export interface PeakStreamOptions {
  timezone: string;
  settings: PeakSettings;
  store: PeakStore;
  warn(message: string): void;
  log?(message: string): void;
  /** A guard change found without a reading (the minute since the last change is over, data went stale). */
  onGuard(message: GuardMessage, status: PeakStatus): void;
  maxMeters?: number;
  saveEveryMs?: number;
  /** false when the node has no records output: closed windows are then not built for it (default true). */
  records?: boolean;
  /** This machine's monotonic clock in ms (default performance.now): when readings arrive, which no clock step moves. */
  monotonic?(): number;
  /** Rule 47: export meters (msg.direction overrides): their readings make no demand unless `countExport`. */
  exportMeters?: ExportMeters;
  countExport?: boolean;
}
