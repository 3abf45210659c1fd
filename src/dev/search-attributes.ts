import {
  approversSearchAttribute,
  pendingApprovalsSearchAttribute,
  requesterSearchAttribute,
  waitingToolsSearchAttribute,
} from '../workflows/definitions';

/** Search attributes a Tollgate namespace needs, in the form `temporal server start-dev --search-attribute` takes. */
export const tollgateSearchAttributes = {
  [pendingApprovalsSearchAttribute.name]: 'KeywordList',
  [waitingToolsSearchAttribute.name]: 'KeywordList',
  [approversSearchAttribute.name]: 'KeywordList',
  [requesterSearchAttribute.name]: 'Keyword',
} as const;
