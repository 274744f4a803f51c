/**
 * What benches and tests reach inside the dispatcher for: its delivery store alone (the database side of
 * dispatch without HTTP), the cipher its secrets are stored with, and the headers a delivery is sent with.
 */
export { DeliveryStore, type AttemptRecord, type ClaimedDelivery } from '../features/delivery/delivery-store.js';
export { deliveryHeaders } from '../features/signing/sign-payload.js';
export { SecretCipher } from '../features/secrets/secret-cipher.js';
