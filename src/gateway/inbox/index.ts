export {
  inboxChannel,
  inboxExtension,
  inboxPaths,
  isInboxExtension,
  sentenceOf,
  type InboxExtensionOptions,
  type InboxMailer,
} from './inbox-extension';
export { inboxOptionsFromEnvironment, sessionKeysFromEnvironment } from './inbox-from-environment';
export { inboxPersonOf, type InboxPerson } from './inbox-person';
export {
  issueInboxValue,
  minimumInboxKeyLength,
  verifyInboxValue,
  type InboxValueClaims,
  type InboxValuePurpose,
  type InboxValueRefusal,
  type InboxValueVerification,
} from './signed-inbox-value';
export { parseTrustedProxies, type TrustedProxies } from './trusted-proxies';
