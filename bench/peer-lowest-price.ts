// The peer of plan-bench's comparison: node-red-contrib-power-saver 5.2.2's Lowest Price
// (src/strategy-lowest-price.js doPlanning / makePlan, src/strategy-lowest-price-functions.js
// getBestX / getBestContinuous, src/utils.js sortedIndex; MIT licence, Copyright (c) Otto
// Paulsen), ported line by line to TypeScript with its own dependencies (lodash.clonedeep,
// luxon): the registry here has no copy of the package. getBestX / getBestContinuous are
// its search (one price a slot, a number of slots to run); doPlanning is what the node runs
// on a price list: each slot's start time read to find the periods (periods), each period
// searched. The node gives doPlanning one price a minute (src/handle-input.js).
import { DateTime } from 'luxon';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cloneDeep = require('lodash.clonedeep') as <T>(x: T) => T;

interface Group {
  value: number;
  count: number;
  startIndex: number;
  before: number | null;
  after: number | null;
  internalOrder?: 'asc' | 'desc';
}

/** The cheapest single block of `count` slots (the peer's doNotSplit). */
export function getBestContinuous(values: number[], count: number): boolean[] {
  let min = values.reduce((p, v) => p + v, 0);
  let minIndex = 0;
  for (let i = 0; i <= values.length - count; i++) {
    let sum = 0;
    for (let j = 0; j < count; j++) sum += values[i + j];
    if (sum < min) {
      min = sum;
      minIndex = i;
    }
  }
  return (cloneDeep(values) as unknown as boolean[]).fill(false).fill(true, minIndex, minIndex + count);
}

/** The cheapest `count` slots in any number of blocks (the peer's split plan). */
export function getBestX(values: number[], count: number): boolean[] {
  const sorted = sortedIndex(values);
  const onOff = (cloneDeep(values) as unknown as boolean[]).fill(true);
  for (let i = 0; i < sorted.length - count; i++) onOff[sorted[i]] = false;
  return onOff;
}

function sortedIndex(valueArr: number[]): number[] {
  const sortedCollapsed = sortCollapsed(addNeighbours(collapseArr(valueArr)));
  const res: number[] = [];
  sortedCollapsed.forEach((group) => {
    const start = group.internalOrder === 'asc' ? 0 : group.count - 1;
    const end = group.internalOrder === 'asc' ? group.count : -1;
    const step = group.internalOrder === 'asc' ? 1 : -1;
    for (let j = start; j !== end; j += step) res.push(group.startIndex + j);
  });
  return res;
}

function collapseArr(valueArr: number[]): Array<{ value: number; count: number; startIndex: number }> {
  if (valueArr.length === 0) return [];
  const result: Array<{ value: number; count: number; startIndex: number }> = [];
  let currentValue = valueArr[0];
  let count = 1;
  let startIndex = 0;
  for (let i = 1; i < valueArr.length; i++) {
    if (valueArr[i] === currentValue) count++;
    else {
      result.push({ value: currentValue, count, startIndex });
      currentValue = valueArr[i];
      count = 1;
      startIndex = i;
    }
  }
  result.push({ value: currentValue, count, startIndex });
  return result;
}

function addNeighbours(collapsedArr: Array<{ value: number; count: number; startIndex: number }>): Group[] {
  return collapsedArr.map((item, index) => ({
    ...item,
    before: index > 0 ? collapsedArr[index - 1].value : null,
    after: index < collapsedArr.length - 1 ? collapsedArr[index + 1].value : null,
  }));
}

function sortCollapsed(collapsedArr: Group[]): Group[] {
  const sorted = (cloneDeep(collapsedArr) as Group[]).sort((a, b) => {
    if (a.value !== b.value) return b.value - a.value;
    if (a.count !== b.count) return a.count - b.count;
    if (a.before === null || a.after === null) return -1;
    if (b.before === null || b.after === null) return 1;
    return Math.max(b.before, b.after) - Math.max(a.before, a.after);
  });
  sorted.forEach((item) => {
    item.internalOrder = item.after === null ? 'desc' : item.before === null ? 'asc' : item.after > item.before! ? 'desc' : 'asc';
  });
  return sorted;
}

export interface PeerConfig {
  fromHour: number;
  fromMinute: number;
  toHour: number;
  toMinute: number;
  minutesOn: number;
  doNotSplit: boolean;
  maxPrice: number | null;
  outputOutsidePeriod: boolean;
  outputIfNoSchedule: boolean;
}

/** The peer's settings for a period of the whole day (00:00 to 00:00), `minutesOn` slots to run, split allowed. */
export function wholeDayNode(minutesOn: number): PeerConfig {
  return {
    fromHour: 0,
    fromMinute: 0,
    toHour: 0,
    toMinute: 0,
    minutesOn,
    doNotSplit: false,
    maxPrice: null,
    outputOutsidePeriod: false,
    outputIfNoSchedule: false,
  };
}

/** The peer's doPlanning (src/strategy-lowest-price.js): the periods of the price list, each planned by makePlan. */
export function doPlanning(node: PeerConfig, priceData: Array<{ value: number; start: string }>): Array<boolean | null> {
  const values = priceData.map((pd) => pd.value);
  const { periodStatus, startIndexes, endIndexes } = periods(node, priceData);
  const onOff: Array<boolean | null> = periodStatus.map((s) =>
    s === 'Outside' ? node.outputOutsidePeriod : s === 'StartMissing' || s === 'EndMissing' ? node.outputIfNoSchedule : null,
  );
  startIndexes.forEach((s, i) => makePlan(node, values, onOff, s, endIndexes[i]));
  return onOff;
}

/**
 * doPlanning's first part: each slot's status (Inside, Outside, StartMissing, EndMissing)
 * and the first and last slot of each period it plans, read from the slots' start times
 * (their hour and minute in luxon's default zone, as the node does).
 */
export function periods(
  node: PeerConfig,
  priceData: Array<{ start: string }>,
): { periodStatus: string[]; startIndexes: number[]; endIndexes: number[] } {
  const startTimes = priceData.map((pd) => pd.start);
  const from = node.fromHour * 60 + node.fromMinute;
  const to = node.toHour * 60 + node.toMinute;
  const periodStatus: string[] = [];
  const startIndexes: number[] = [];
  const endIndexes: number[] = [];
  let currentStatus = from < (to === 0 && to !== from ? 24 * 60 : to) ? 'Outside' : 'StartMissing';
  let hour: number;
  let minute = 0;
  startTimes.forEach((st, i) => {
    hour = DateTime.fromISO(st).hour;
    minute = hour * 60 + DateTime.fromISO(st).minute;
    if (minute === to && to === from && currentStatus === 'Inside') endIndexes.push(i - 1);
    if (minute === to && to !== from && i > 0) {
      if (currentStatus !== 'StartMissing') endIndexes.push(i - 1);
      currentStatus = 'Outside';
    }
    if (minute === from) {
      currentStatus = 'Inside';
      startIndexes.push(i);
    }
    periodStatus[i] = currentStatus;
  });
  if (currentStatus === 'Inside' && minute !== (to === 0 ? 23 * 60 + 59 : to - 1)) {
    let i = periodStatus.length - 1;
    do {
      periodStatus[i] = 'EndMissing';
      hour = DateTime.fromISO(startTimes[i]).hour;
      minute = hour * 60 + DateTime.fromISO(startTimes[i]).minute;
      i--;
    } while (periodStatus[i] === 'Inside' && minute !== from);
    startIndexes.splice(startIndexes.length - 1, 1);
  }
  if (minute === (to === 0 ? 23 * 60 + 59 : to - 1)) endIndexes.push(startTimes.length - 1);
  return { periodStatus, startIndexes, endIndexes };
}

function makePlan(node: PeerConfig, values: number[], onOff: Array<boolean | null>, fromIndex: number, toIndex: number): void {
  const valuesInPeriod = values.slice(fromIndex, toIndex + 1);
  const res = node.doNotSplit ? getBestContinuous(valuesInPeriod, node.minutesOn) : getBestX(valuesInPeriod, node.minutesOn);
  const sumPriceOn = res.reduce((p, v, i) => p + (v ? valuesInPeriod[i] : 0), 0);
  const average = sumPriceOn / node.minutesOn;
  res.forEach((v, i) => {
    onOff[fromIndex + i] =
      node.maxPrice == null ? v : node.doNotSplit ? v && average <= node.maxPrice : v && valuesInPeriod[i] <= node.maxPrice;
  });
}
