export { ContentNotFoundError, isContentRef, type ContentStore } from './content-store';
export { contentStoreFromEnvironment, FileContentStore } from './file-content-store';
export { appendTranscript, NotATranscriptError, readTranscript } from './transcript';
export { resolveStoredContent, storeLargeOutput, storedContentRef, storedContentTurn } from './stored-output';
