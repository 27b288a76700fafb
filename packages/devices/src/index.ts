export {
  createDeviceLists,
  type DeviceLists,
  type StoredDeviceList,
  type WriteOptions,
} from "./device-lists.js";
export { DevicesError } from "./errors.js";
export { deviceLists, devicesMigrations } from "./schema.js";
