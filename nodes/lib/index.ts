// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see docs/library.md).
export { decodeSensorId } from './api/sensor-ids';
export type { DecodedSensorId, ModbusQuantity } from './api/sensor-ids';
// The engine (time, tariffs, price, cost)
export {
  toEpochMs,
  requireEpochMs,
  assertTimeZone,
  machineTimeZone,
  localPeriod,
  namedPeriod,
  localDate,
  PERIOD_NAMES,
} from './engine/time';
export type { LocalPeriodKind, NamedPeriod } from './engine/time';
export { parseTariffs, sensorsUsedBy } from './engine/tariff';
export type { Rule, Tariff, Problem, SensorRef } from './engine/tariff';
export { priceAt, nextPriceChange, schedule } from './engine/price';
export type { PriceResult, PriceOptions, ScheduleEntry, SensorValues } from './engine/price';
export { cheapestWindows, dearestWindows } from './engine/plan';
export type { PlanOptions, PlanResult, PlanSlot } from './engine/plan';
export { savingOffWindows } from './engine/plan-saving';
export type { SavingOptions, SavingResult, SavingSlot } from './engine/plan-saving';
export { computeCost } from './engine/cost';
export type {
  CostResult,
  CostOptions,
  Reading,
  SensorTimelines,
  RuleCost,
  SensorValueCost,
  Interval,
  RejectedInterval,
  DroppedRow,
} from './engine/cost';
export { compareTariffs } from './engine/compare';
export type { TariffComparison, TariffComparisonRow } from './engine/compare';
export { sensorRuns } from './engine/sensor-runs';
export type { SensorRun, SensorRunsOptions, SensorRunsResult } from './engine/sensor-runs';
// The API client
export { EasyClient, EasyApiError, DEFAULT_BASE_URL, CLIENT_DEFAULTS } from './api/client';
export type { EasyClientOptions, EasyApiErrorCode, RequestOptions, RetryInfo, Sensor } from './api/client';
// Money display (to the currency's minor unit), as the cost node uses it
export { formatMoney, minorUnits } from './engine/format';
export type { FormattedMoney } from './engine/format';
export { periodBounds } from './engine/totals';
