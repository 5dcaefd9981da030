// A length of time as plans' texts say it (run times, the window, errors).
import { HOUR_MS } from '../time/time';

/** `3 h`, `2 h 30 min`, `45 min`, `20 s`, `0.001 s`: exact to the ms, as plans are */
export function hours(ms: number): string {
  const totalMs = Math.round(ms);
  const h = Math.floor(totalMs / HOUR_MS);
  const min = Math.floor((totalMs % HOUR_MS) / 60_000);
  const sec = (totalMs % 60_000) / 1000;
  const parts: string[] = [];
  if (h) parts.push(`${h} h`);
  if (min) parts.push(`${min} min`);
  if (sec || parts.length === 0) parts.push(`${sec} s`);
  return parts.join(' ');
}
