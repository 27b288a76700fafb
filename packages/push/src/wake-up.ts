/**
 * The plaintext of every wake-up: `{"v":1,"pending":N}`, N the blobs queued for the address. It
 * names no sender, message or address: the push service and the device's OS learn nothing else.
 */
export function wakeUpPlaintext(pending: number): Uint8Array {
  return new TextEncoder().encode(`{"v":1,"pending":${Math.max(0, Math.trunc(pending))}}`);
}
