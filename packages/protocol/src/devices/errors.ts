import { CodedError } from "@svc/canonical";

/**
 * Why a device list (or a step from one version to the next) is refused. The server answers
 * DEVICE_LIST_BROKEN_CHAIN as a conflict (another version is current), the rest as a bad list;
 * a client refuses any of them as an invalid list.
 */
export type DeviceListErrorCode =
  /** Not a device list: a member of the wrong type or size, unsorted or foreign devices. */
  | "DEVICE_LIST_MALFORMED"
  /** The signature does not verify under the signer's key as the previous version lists it. */
  | "DEVICE_LIST_BAD_SIGNATURE"
  /** The signer is not on the previous version (version 1: not its one device). */
  | "DEVICE_LIST_SIGNER_NOT_LISTED"
  /** Not the next version of the previous one: account, version or previousHash differ. */
  | "DEVICE_LIST_BROKEN_CHAIN"
  /** A version 1 with more than one device, or a previousHash that is not all zero. */
  | "DEVICE_LIST_BAD_FIRST_VERSION"
  /** The same devices with the same keys as the previous version. */
  | "DEVICE_LIST_UNCHANGED";

export class DeviceListError extends CodedError<DeviceListErrorCode> {}

/** A link code or a device frame that cannot be read. */
export type DeviceMessageErrorCode = "LINK_CODE_MALFORMED" | "DEVICE_FRAME_MALFORMED";

export class DeviceMessageError extends CodedError<DeviceMessageErrorCode> {}
