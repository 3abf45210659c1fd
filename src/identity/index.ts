export {
  minimumTokenLength,
  parseAccessConfiguration,
  readAccessFile,
  type AccessConfiguration,
  type TokenGrant,
} from './access-file';
export { PersonDirectory, personIdPattern, type Person } from './people';
export { approverNamesResolved, resolveApproverNames } from './resolve-approver-names';
export { resolvePerson, type ChannelIdentity, type PersonResolution } from './resolve-person';
export { defaultShortcutScopes, isTokenScope, tokenScopes, type TokenScope } from './scopes';
export { digestToken } from './token-digest';
