// What the PeakStream suites share: a stream in a zone on a store held in memory (what it
// loads, what it saved), its warnings, and the error a refused reading ends in.
import should from 'should';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { RefusedReading } from '../../nodes/lib/runtime/common/refusal-burst';

/** A PeakStream of `config` in `timezone`, its store loading `stored` and saving into `saved`, read back (restore) before it is returned. */
export async function openPeakStream(timezone: string, config: Record<string, unknown>, stored?: unknown, saved: unknown[] = []) {
  const warnings: string[] = [];
  const stream = new PeakStream({
    timezone,
    settings: peakSettings(config),
    store: { load: async () => stored, save: async (v) => void saved.push(v) },
    warn: (w) => warnings.push(w),
    onGuard: () => undefined,
  });
  await stream.restore();
  return { stream, warnings };
}

/** The error a refused reading ends in (its burst's, once the burst is over). */
export async function refusal(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  should(err).be.instanceOf(RefusedReading);
  return (await (err as RefusedReading).burst)!;
}
