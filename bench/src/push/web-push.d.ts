// web-push ships no types; the push suite measures these three of its functions.
declare module "web-push" {
  interface VapidDetails {
    subject: string;
    publicKey: string;
    privateKey: string;
  }
  const webPush: {
    generateRequestDetails(
      subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
      payload: Buffer,
      options: { vapidDetails: VapidDetails; TTL: number; urgency: string; topic: string },
    ): { headers: Record<string, string | number>; body: Buffer };
    encrypt(
      userPublicKey: string,
      userAuth: string,
      payload: Buffer,
      contentEncoding: "aes128gcm",
    ): { cipherText: Buffer };
    getVapidHeaders(
      audience: string,
      subject: string,
      publicKey: string,
      privateKey: string,
      contentEncoding: "aes128gcm",
    ): { Authorization: string };
  };
  export default webPush;
}
