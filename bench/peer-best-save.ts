// The peer of the power-saver re-run: node-red-contrib-power-saver 5.2.2's Best Save
// (src/strategy-best-save-functions.js calculate / isOnOffSequencesOk, tag v5.2.2, commit
// d510940; MIT licence, Copyright (c) Otto Paulsen), ported line by line to TypeScript.
// It plans one price a minute: every (start, length) off sequence that saves more than
// minSaving a minute, sorted by saving, taken greedily while the on/off sequence stays
// valid (at most maxMinutesOff off in a row, at least minMinutesOff, the recovery on after).
// The day-before arguments (lastValueDayBefore, lastCountDayBefore) are left out: the
// re-run plans one price list, as the node does on its first message.

/**
 * The peer's validity rule: true when every off sequence of `onOff` (false = off) lasts
 * at most maxMinutesOff and at least minMinutesOff, and is followed by its recovery on:
 * max(1, round(off × recoveryPercentage / 100)) minutes, at most recoveryMaxMinutes.
 */
export function isOnOffSequencesOk(
  onOff: boolean[],
  maxMinutesOff: number,
  minMinutesOff: number,
  recoveryPercentage: number,
  recoveryMaxMinutes: number | null = null,
): boolean {
  let offCount = 0;
  let onCount = 0;
  let reachedMaxOff = false;
  let reachedMinOn = true;
  let reachedMinOff: boolean | null = null;
  let minOnAfterOff = 0;
  for (let i = 0; i < onOff.length; i++) {
    if (!onOff[i]) {
      if (maxMinutesOff === 0 || reachedMaxOff) return false;
      if (!reachedMinOn) return false;
      if (reachedMinOff === null) reachedMinOff = false;
      offCount++;
      onCount = 0;
      if (offCount >= maxMinutesOff) reachedMaxOff = true;
      if (offCount >= minMinutesOff) reachedMinOff = true;
      const minRounded = Math.max(Math.round((offCount * recoveryPercentage) / 100), 1);
      minOnAfterOff = Math.min(minRounded, recoveryMaxMinutes ?? minRounded);
      if (i === onOff.length - 1) {
        // If last minute, consider min reached
        reachedMinOn = true;
        reachedMinOff = true;
      }
    } else {
      if (reachedMinOff === false) return false;
      onCount++;
      if (onCount >= minOnAfterOff) {
        reachedMaxOff = false;
        reachedMinOn = true;
      } else {
        reachedMinOn = false;
      }
      offCount = 0;
      reachedMinOff = null;
    }
  }
  return reachedMinOn && !(reachedMinOff === false);
}

/** The peer's Best Save plan of `values` (one price a minute): true on, false off. */
export function calculate(
  values: number[],
  maxMinutesOff: number,
  minMinutesOff: number,
  recoveryPercentage: number,
  recoveryMaxMinutes: number | null,
  minSaving: number,
): boolean[] {
  const last = values.length - 1;

  // Create matrix with saving per minute
  const savingPerMinute: number[][] = [];
  for (let minutes = 0; minutes < last; minutes++) {
    const row: number[] = [];
    for (let count = 1; count <= maxMinutesOff; count++) {
      const on = minutes + count;
      row.push(values[minutes] - values[on >= last ? last : on]);
    }
    savingPerMinute.push(row);
  }

  // Create list with summary saving per sequence
  let savingsList: Array<{ minute: number; count: number; saving: number }> = [];
  for (let minute = 0; minute < last; minute++) {
    for (let count = 1; count <= maxMinutesOff; count++) {
      let saving = 0;
      for (let offset = 0; offset < count && minute + offset < last; offset++) {
        saving += savingPerMinute[minute + offset][count - offset - 1];
      }
      if (saving > minSaving * count && minute + count <= last && values[minute] > values[minute + count] + minSaving) {
        savingsList.push({ minute, count, saving });
      }
    }
  }

  savingsList.sort((b, a) => (b.saving === a.saving ? a.count - b.count : b.saving - a.saving));
  const onOff = values.map(() => true); // Start with all on

  // Find the best possible sequences
  while (savingsList.length > 0) {
    const { minute, count } = savingsList[savingsList.length - 1];
    // Fast check: skip if any minute in this range is already turned off
    let alreadyTaken = false;
    for (let c = 0; c < count; c++) {
      if (!onOff[minute + c]) {
        alreadyTaken = true;
        break;
      }
    }
    if (alreadyTaken) {
      savingsList.pop();
      continue;
    }
    // Apply the off-period
    for (let c = 0; c < count; c++) onOff[minute + c] = false;
    if (isOnOffSequencesOk(onOff, maxMinutesOff, minMinutesOff, recoveryPercentage, recoveryMaxMinutes)) {
      savingsList = savingsList.filter((s) => s.minute < minute || s.minute >= minute + count);
    } else {
      // Roll back: only the minutes we changed (all were true before alreadyTaken check)
      for (let c = 0; c < count; c++) onOff[minute + c] = true;
      savingsList.pop();
    }
  }
  return onOff;
}
