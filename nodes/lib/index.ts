// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see docs/library.md).
export { decodeSensorId } from './api/sensor-ids';
export type { DecodedSensorId, ModbusQuantity } from './api/sensor-ids';
// The engine (time, tariffs, price, cost, peaks)
export {
  toEpochMs,
  requireEpochMs,
  assertTimeZone,
  machineTimeZone,
  localPeriod,
  namedPeriod,
  localDate,
  PERIOD_NAMES,
} from './engine/time/time';
export type { LocalPeriodKind, NamedPeriod } from './engine/time/time';
export { parseTariffs, sensorsUsedBy } from './engine/tariff/tariff';
export type { Rule, Tariff, Problem, SensorRef } from './engine/tariff/tariff';
export { priceAt, nextPriceChange, schedule } from './engine/prices/price-source';
export type { PriceResult, PriceOptions, ScheduleEntry, SensorValues, PriceSource } from './engine/prices/price-source';
export type { PriceParts } from './engine/tariff/price';
export { priceList, PriceList, MAX_PRICE_LIST_ENTRIES } from './engine/prices/price-list';
export type { PriceListEntry, PriceListOptions, PriceGap } from './engine/prices/price-list';
export { isPriceStack } from './engine/prices/price-stack';
export type { PriceStack } from './engine/prices/price-stack';
export { cheapestWindows, dearestWindows } from './engine/plan/plan';
export type { PlanOptions, PlanResult, PlanSlot } from './engine/plan/plan';
export { savingOffWindows } from './engine/plan/plan-saving';
export type { SavingOptions, SavingResult, SavingSlot } from './engine/plan/plan-saving';
export { computeCost } from './engine/cost/cost';
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
  MeterDirection,
} from './engine/cost/cost';
export { compareTariffs } from './engine/reports/compare';
export type { TariffComparison, TariffComparisonRow, TariffOffer } from './engine/reports/compare';
export { computeNetCost } from './engine/net/net-cost';
export type { NetCostOptions, NetCostResult, NetPeriod, Netting, SiteReadings, TariffPair } from './engine/net/net-cost';
export { sensorRuns } from './engine/reports/sensor-runs';
export type { SensorRun, SensorRunsOptions, SensorRunsResult } from './engine/reports/sensor-runs';
export { demandWindowOf } from './engine/peak/demand-window';
export type { DemandMinutes } from './engine/peak/demand-window';
export { demandWindows } from './engine/peak/demand';
export type { DemandWindow, DemandWindows, DemandWindowsOptions } from './engine/peak/demand';
export { monthlyPeaks } from './engine/peak/monthly-peaks';
export type { MonthPeaks, MonthlyPeaksOptions, PeakHours, PeakWindow } from './engine/peak/monthly-peaks';
export { billingPeriodOf } from './engine/peak/billing-periods';
export type { BillingPeriods } from './engine/peak/billing-periods';
export { demandCharges } from './engine/peak/billing';
export { apparentDemandWindows, reactiveCharges } from './engine/peak/apparent';
export type { ApparentRegisters, ApparentWindow, ApparentWindows, ReactiveChargesOptions, ReactivePeriod } from './engine/peak/apparent';
export type { ChargedPeriod, DemandCharge, DemandChargesOptions } from './engine/peak/billing';
// The API client
export { EasyClient, EasyApiError, DEFAULT_BASE_URL, CLIENT_DEFAULTS } from './api/client';
export type { EasyClientOptions, EasyApiErrorCode, RequestOptions, RetryInfo, Sensor } from './api/client';
// Money display (to the currency's minor unit), as the cost node uses it
export { formatMoney, minorUnits } from './engine/common/format';
export type { FormattedMoney } from './engine/common/format';
export { periodBounds } from './engine/cost/totals';
