// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see README "Library API").
export { decodeSensorId } from './sensor-ids';
export type { DecodedSensorId, ModbusQuantity } from './sensor-ids';
// The engine (time, tariffs, price, cost)
export { toEpochMs, requireEpochMs, assertTimeZone, machineTimeZone, localPeriod, namedPeriod, localDate, PERIOD_NAMES } from './time';
export type { LocalPeriodKind, NamedPeriod } from './time';
export { parseTariffs, sensorsUsedBy } from './tariff';
export type { Rule, Tariff, Problem, SensorRef } from './tariff';
export { priceAt, nextPriceChange, schedule } from './price';
export type { PriceResult, PriceOptions, ScheduleEntry, SensorValues } from './price';
export { cheapestWindows } from './plan';
export type { PlanOptions, PlanResult, PlanSlot } from './plan';
export { computeCost } from './cost';
export type { CostResult, CostOptions, Reading, SensorTimelines, RuleCost, Interval, RejectedInterval, DroppedRow } from './cost';
// The API client
export { EasyClient, EasyApiError, DEFAULT_BASE_URL, CLIENT_DEFAULTS } from './client';
export type { EasyClientOptions, EasyApiErrorCode, RequestOptions, RetryInfo, Sensor } from './client';
// Money display (to the currency's minor unit), as the cost node uses it
export { formatMoney, minorUnits } from './format';
export type { FormattedMoney } from './format';
export { periodBounds } from './totals';
