export { ContentNotFoundError, isContentRef, type ContentStore } from './content-store';
export {
  contentStoreFromEnvironment,
  defaultContentStore,
  contentStoreFromUrl,
  namedContentStoreFromEnvironment,
  type NamedContentStore,
} from './content-store-from-environment';
export { FileContentStore } from './file-content-store';
export { S3ContentStore, type S3Location } from './s3-content-store';
export { appendTranscript, NotATranscriptError, readTranscript } from './transcript';
export { resolveStoredContent, storeLargeOutput, storedContentRef, storedContentTurn } from './stored-output';
export {
  FolderSharedRecords,
  S3SharedRecords,
  sharedRecordsFromEnvironment,
  sharedRecordsFromUrl,
  type SharedRecords,
} from './shared-records';
